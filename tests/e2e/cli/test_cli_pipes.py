"""gg with pipes on the real ggd (scripted fake model): stdout, stderr, exit codes and flags."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import CliEnv, last_user

pytestmark = pytest.mark.timeout(90)
MODES = {"daemon": [], "no-daemon": ["--no-daemon"]}
READ = {"name": "read", "arguments": {"path": "a.txt"}}
EDIT = {
    "name": "edit",
    "arguments": {"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]},
}


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> list[str]:
    """Through the auto-started shared daemon, and through a private `ggd --stdio` child."""
    return list(MODES[request.param])


def test_prompt_streams_the_answer_to_stdout(real_env: CliEnv, mode: list[str]) -> None:
    real_env.model.add_steps([{"text": "Hello **there**\n", "chunkSize": 3}])
    r = real_env.run(*mode, "-p", "hi")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Hello **there**\n"  # piped: the model's text, unrendered
    assert last_user(real_env.model.requests[0]) == "hi"
    assert "demo" not in r.stderr


def test_answer_on_stdout_tool_lines_on_stderr(real_env: CliEnv, mode: list[str]) -> None:
    (real_env.ws / "a.txt").write_text("content of a\n")
    real_env.model.add_steps([{"text": "# Echo\n", "toolCalls": [READ]}, {"text": "done"}])
    r = real_env.run(*mode, "-p", "read a")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "# Echo\n\ndone\n"  # a blank line between assistant messages
    assert "✓ read a.txt" in r.stderr
    assert "content of a" in json.dumps(real_env.model.requests[1]["messages"])


def test_prompt_from_stdin_and_from_words(real_env: CliEnv, mode: list[str]) -> None:
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
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "run_completed"
    text = "".join(e["text"] for e in events if e["type"] == "text_delta")
    assert text == "abcdef" == events[-1]["content"]
    assert len({e["runId"] for e in events}) == 1


def test_failed_run_exits_1_with_the_error(real_env: CliEnv, mode: list[str]) -> None:
    real_env.model.add_steps(
        [{"status": 400, "errorBody": {"error": {"message": "the fake refuses"}}}]
    )
    r = real_env.run(*mode, "-p", "hi")
    assert r.returncode == 1
    assert "gg: error:" in r.stderr and "the fake refuses" in r.stderr
    assert r.stdout == ""


def test_demo_notice_when_no_provider_is_configured(cli_env: CliEnv) -> None:
    r = cli_env.run("--no-daemon", "-p", "hello")
    assert r.returncode == 0, r.stderr
    assert "demo model is answering" in r.stderr
    assert r.stdout.strip() and "demo model is answering" not in r.stdout


def test_approval_modes_without_a_terminal(real_env: CliEnv) -> None:
    target = real_env.ws / "a.txt"
    target.write_text("old\n")
    # auto (the default) without a terminal: nobody can answer, so the edit is denied.
    real_env.model.add_steps([{"toolCalls": [EDIT]}, {"text": "tried"}])
    r = real_env.run("-p", "change it")
    assert r.returncode == 0, r.stderr
    assert "✗ edit" in r.stderr
    assert target.read_text() == "old\n"
    # --yolo and --approval never both allow the edit without asking.
    for flags in (["--yolo"], ["--approval", "never"]):
        target.write_text("old\n")
        real_env.model.add_steps([{"toolCalls": [EDIT]}, {"text": "changed"}])
        r = real_env.run(*flags, "-p", "change it")
        assert r.returncode == 0, r.stderr
        assert "✓ edit" in r.stderr
        assert target.read_text() == "new\n"


def test_model_and_name_flags_reach_the_daemon(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "ok"}])
    r = real_env.run("--no-daemon", "--model", "openai:other", "--name", "n1", "-p", "x")
    assert r.returncode == 0, r.stderr
    assert real_env.model.requests[0]["model"] == "other"
    sessions = json.loads(real_env.run("sessions", "list", "--json").stdout)
    assert [s["name"] for s in sessions] == ["n1"]


def users(request: dict[str, Any]) -> list[str]:
    """The user messages the model was sent, in order."""
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def test_continue_and_resume(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": f"answer {i}"} for i in range(4)])

    def newest() -> str:
        return str(json.loads(real_env.run("sessions", "list", "--json").stdout)[0]["id"])

    assert real_env.run("-p", "one").returncode == 0
    first = newest()
    assert real_env.run("-p", "two").returncode == 0
    second = newest()
    assert first != second
    r = real_env.run("--continue", "-p", "three")
    assert r.returncode == 0 and r.stdout == "answer 2\n", r.stderr
    assert users(real_env.model.requests[2]) == ["two", "three"]  # the newest session went on
    r = real_env.run("--resume", first, "-p", "four")
    assert r.returncode == 0, r.stderr
    assert users(real_env.model.requests[3]) == ["one", "four"]
    r = real_env.run("--resume", "nope", "-p", "five")
    assert r.returncode == 1
    assert "gg: error: no session with id 'nope'" in r.stderr
    ids = [s["id"] for s in json.loads(real_env.run("sessions", "list", "--json").stdout)]
    assert set(ids) == {first, second}
    assert len(real_env.model.requests) == 4
