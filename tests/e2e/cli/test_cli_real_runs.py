"""gg running turns on the real ggd with the scripted fake model: pipes and a real terminal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import CliEnv
from .test_cli_relay_fake import Lines, req

pytestmark = pytest.mark.timeout(120)
MODES = {"daemon": [], "no-daemon": ["--no-daemon"]}


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> list[str]:
    """Through the auto-started shared daemon, and through a private `ggd --stdio` child."""
    return list(MODES[request.param])


def last_user(request: dict[str, Any]) -> str:
    """The text of the last user message the model was sent."""
    for m in reversed(request["messages"]):
        if m["role"] == "user":
            c = m["content"]
            return c if isinstance(c, str) else "".join(p.get("text", "") for p in c)
    return ""


# -- pipes ------------------------------------------------------------------------------------


def test_prompt_streams_the_answer_to_stdout(real_env: CliEnv, mode: list[str]) -> None:
    real_env.model.add_steps([{"text": "Hello **there**\n", "chunkSize": 3}])
    r = real_env.run(*mode, "-p", "hi")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Hello **there**\n"  # piped: the model's text, unrendered
    assert last_user(real_env.model.requests[0]) == "hi"
    assert "demo" not in r.stderr


def test_prompt_from_stdin_and_from_words(real_env: CliEnv) -> None:
    mode: list[str] = []
    real_env.model.add_steps([{"text": "one"}, {"text": "two"}])
    r = real_env.run(*mode, input="read from the pipe\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "one\n"
    assert last_user(real_env.model.requests[0]).strip() == "read from the pipe"
    r = real_env.run(*mode, "several", "words")
    assert r.stdout == "two\n"
    assert last_user(real_env.model.requests[1]) == "several words"


def test_json_prints_every_event(real_env: CliEnv, mode: list[str]) -> None:
    real_env.model.add_steps([{"text": "abcdef", "chunkSize": 2}])
    r = real_env.run(*mode, "--json", "-p", "hi")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    seqs = [e["sequence"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "run_completed"
    text = "".join(e["text"] for e in events if e["type"] == "text_delta")
    assert text == "abcdef" == events[-1]["content"]
    assert len({e["runId"] for e in events}) == 1


def test_tool_lines_go_to_stderr(real_env: CliEnv) -> None:
    mode = ["--no-daemon"]
    (real_env.ws / "a.txt").write_text("content of a\n")
    real_env.model.add_steps(
        [{"toolCalls": [{"name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "done"}]
    )
    r = real_env.run(*mode, "-p", "read a")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done\n"
    assert "✓ read" in r.stderr
    assert "content of a" in json.dumps(real_env.model.requests[1]["messages"])


def test_failed_run_exits_1_with_the_error(real_env: CliEnv) -> None:
    mode: list[str] = []
    real_env.model.add_steps(
        [{"status": 400, "errorBody": {"error": {"message": "the fake refuses"}}}]
    )
    r = real_env.run(*mode, "-p", "hi")
    assert r.returncode == 1
    assert "gg: error:" in r.stderr


def test_demo_notice_when_no_provider_is_configured(cli_env: CliEnv) -> None:
    mode = ["--no-daemon"]
    r = cli_env.run(*mode, "-p", "hello")
    assert r.returncode == 0, r.stderr
    assert "demo model is answering" in r.stderr
    assert r.stdout.strip()


def test_non_interactive_auto_mode_denies_edits_and_yolo_allows(real_env: CliEnv) -> None:
    target = real_env.ws / "a.txt"
    target.write_text("old\n")
    edit = {
        "name": "edit",
        "arguments": {"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]},
    }
    real_env.model.add_steps([{"toolCalls": [edit]}, {"text": "tried"}])
    r = real_env.run("-p", "change it")
    assert r.returncode == 0, r.stderr
    assert "✗ edit" in r.stderr
    assert target.read_text() == "old\n"
    real_env.model.add_steps([{"toolCalls": [edit]}, {"text": "changed"}])
    r = real_env.run("--yolo", "-p", "change it")
    assert r.returncode == 0, r.stderr
    assert "✓ edit" in r.stderr
    assert target.read_text() == "new\n"


def test_rpc_relays_a_run_and_its_events(real_env: CliEnv, mode: list[str]) -> None:
    real_env.model.add_steps([{"text": "relayed answer"}])
    proc = real_env.popen("rpc", *mode)
    rpc = Lines(proc)
    try:
        rpc.send(req(1, "gg/session.create", {}))
        sid = rpc.reply(1)["result"]["sessionId"]
        rpc.send(req(2, "gg/run.start", {"sessionId": sid, "prompt": "go"}))
        seen = rpc.until(lambda m: m.get("params", {}).get("type") == "run_completed")
        run_id = next(m["result"]["runId"] for m in seen if m.get("id") == 2)
        events = [m["params"] for m in seen if m.get("method") == "gg/run.event"]
        assert {e["runId"] for e in events} == {run_id}
        assert events[-1]["content"] == "relayed answer"
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(15) == 0
    finally:
        proc.kill()
        proc.wait()


# -- a real terminal --------------------------------------------------------------------------

EDIT = {
    "name": "edit",
    "arguments": {"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]},
}


@pytest.mark.parametrize(
    ("mode", "answer", "result"),
    [([], "y", "new\n"), (["--no-daemon"], "n", "old\n"), ([], "a", "new\n")],
    ids=["daemon-yes", "no-daemon-no", "daemon-always"],
)
def test_approval_prompt_in_a_terminal(
    real_env: CliEnv, mode: list[str], answer: str, result: str
) -> None:
    target = real_env.ws / "a.txt"
    target.write_text("old\n")
    real_env.model.add_steps([{"toolCalls": [EDIT]}, {"text": "finished"}])
    p = real_env.pty(*mode, "-p", "change it")
    p.expect(r"\? approve edit")
    p.expect("risk: ")
    p.expect(r"-old")
    p.expect(r"\+new")
    p.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways this session:")
    p.send(answer + "\r")
    p.expect("→ " + {"y": "allowed", "n": "denied", "a": "allowed for this session"}[answer])
    p.expect("finished")
    assert p.wait() == 0
    assert target.read_text() == result


def test_ctrl_c_cancels_the_run_and_exits_130(real_env: CliEnv, mode: list[str]) -> None:
    real_env.model.add_steps([{"text": "working on it", "hang": True}])
    p = real_env.pty(*mode, "-p", "long job")
    p.expect("working on it")
    p.send("\x03")
    p.expect("canceling the run")
    assert p.wait() == 130
    # The run is really over: the same session takes a new turn.
    real_env.model.add_steps([{"text": "after the cancel"}])
    if not mode:
        r = real_env.run("--continue", "-p", "next")
        assert r.returncode == 0, r.stderr
        assert r.stdout == "after the cancel\n"


def test_interactive_turns_steering_ctrl_c_and_tree(real_env: CliEnv, mode: list[str]) -> None:
    (real_env.ws / "a.txt").write_text("a\n")
    read = {"name": "read", "arguments": {"path": "a.txt"}}
    real_env.model.add_steps(
        [
            {"text": "first answer"},
            {"text": "working", "toolCalls": [read]},
            # Streams slowly (~2 s) so the steer typed after "working" lands before the boundary.
            {"delayMs": 300, "text": " still", "chunkSize": 2, "toolCalls": [read]},
            {"text": " steered ok", "expect": {"lastUser": "turn left"}},
            {"text": "hanging", "hang": True},
            {"text": "back again"},
        ]
    )
    p = real_env.pty(*mode)
    p.expect("gg> ")
    p.send("first\r")
    p.expect("first answer")
    p.expect("gg> ")
    p.send("second\r")
    p.expect("working")
    p.send("turn left\r")
    p.expect("steering")
    p.expect("› turn left")
    p.expect("steered ok")
    p.expect("gg> ")
    p.send("third\r")
    p.expect("hanging")
    p.send("\x03")
    p.expect("canceling")
    p.expect("gg> ")
    p.send("fourth\r")
    p.expect("back again")
    p.expect("gg> ")
    p.send("/tree\r")
    m = p.expect(r"(\S+) user: first")
    p.expect("gg> ")
    p.send(f"/checkout {m.group(1)}\r")
    p.expect("gg> first")  # the user message comes back as an editable draft
    p.send("\x15\x04")  # clear the draft, then leave
    assert p.wait() == 0
    assert not real_env.model.mismatches
