"""gg on a real pseudo-terminal against the real ggd: approvals, Ctrl+C, steering, colour."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)
MODES = {"daemon": [], "no-daemon": ["--no-daemon"]}


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> list[str]:
    """Through the auto-started shared daemon, and through a private `ggd --stdio` child."""
    return list(MODES[request.param])


def edit(name: str) -> dict[str, Any]:
    """A tool call replacing 'old' by 'new' in the file `name`."""
    return {
        "name": "edit",
        "arguments": {"path": name, "edits": [{"oldText": "old", "newText": "new"}]},
    }


def wait_for_file(name: str) -> dict[str, Any]:
    """A bash tool call that returns once the test creates `name` in the workspace."""
    return {
        "name": "bash",
        "arguments": {"command": f"while [ ! -e {name} ]; do sleep 0.02; done; echo released"},
    }


def test_approvals_show_the_diff_and_send_each_answer(real_env: CliEnv, mode: list[str]) -> None:
    for name in "abcd":
        (real_env.ws / f"{name}.txt").write_text("old\n")
    real_env.model.add_steps(
        [
            {"toolCalls": [edit("a.txt")]},
            {"toolCalls": [edit("b.txt")]},
            {"toolCalls": [edit("c.txt")]},
            {"toolCalls": [edit("d.txt")]},
            {"text": "finished"},
        ]
    )
    p = real_env.pty(*mode, "-p", "change them")
    p.expect(r"\? approve edit: .*a\.txt")
    p.expect(r"risk: normal \(.+\)")
    p.expect(r"\+\+\+ b/a\.txt")
    p.expect(r"-old\n\s+\+new")
    p.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways this session:")
    p.send("x")  # one key, no Enter: a terminal answers approvals with single keys
    p.expect("please answer y, n or a")
    p.send("n")
    p.expect("→ denied")
    p.expect(r"\? approve edit: .*b\.txt")
    p.expect(r"allow\?")
    p.send("y")
    p.expect("→ allowed")
    p.expect(r"\? approve edit: .*c\.txt")
    p.expect(r"allow\?")
    p.send("a")
    p.expect("→ allowed for this session")
    p.expect("finished")
    assert p.wait() == 0
    # y and a applied their edit; n did not; after a, the next edit was not asked about.
    texts = {n: (real_env.ws / f"{n}.txt").read_text() for n in "abcd"}
    assert texts == {"a": "old\n", "b": "new\n", "c": "new\n", "d": "new\n"}
    assert p.text.count("? approve edit") == 3
    assert "denied" in json.dumps(real_env.model.requests[1]["messages"][-1])


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


def test_ctrl_c_with_json_ends_on_run_canceled(real_env: CliEnv) -> None:
    # One step that never ends: the run can only end by the cancel. (A text-only step before
    # it ended the run by itself, so the test raced Ctrl+C against run_completed and lost
    # on a loaded machine.)
    real_env.model.add_steps([{"text": "working", "hang": True}])
    p = real_env.pty("--yolo", "--json", "-p", "long job")
    p.expect('"type": ?"text_delta"')
    p.send("\x03")
    assert p.wait() == 130
    events = [json.loads(line) for line in p.text.splitlines() if line.startswith("{")]
    assert events[-1]["type"] == "run_canceled"


def test_ctrl_c_during_an_approval_cancels(real_env: CliEnv) -> None:
    (real_env.ws / "a.txt").write_text("old\n")
    real_env.model.add_steps([{"toolCalls": [edit("a.txt")]}])
    p = real_env.pty("-p", "change it")
    p.expect(r"allow\?")
    p.send("\x03")
    p.expect("canceling the run")
    assert p.wait() == 130
    assert (real_env.ws / "a.txt").read_text() == "old\n"
    # The run is over in ggd too: the session takes the next turn.
    real_env.model.add_steps([{"text": "after the cancel"}])
    r = real_env.run("--continue", "-p", "next")
    assert r.returncode == 0 and r.stdout == "after the cancel\n", r.stderr


def test_interactive_turns_steering_and_ctrl_c(real_env: CliEnv, mode: list[str]) -> None:
    real_env.model.add_steps(
        [
            {"text": "first answer"},
            # The tool waits for a file the test creates once gg says the steer was taken.
            {"text": "working", "toolCalls": [wait_for_file("go")]},
            {"text": " steered ok", "expect": {"lastUser": "turn left"}},
            {"text": "hanging", "hang": True},
            {"text": "back again"},
        ]
    )
    p = real_env.pty(*mode, "--yolo")
    p.expect("/help for commands")
    p.expect("gg> ")
    p.send("first\r")
    p.expect("first answer")
    p.expect("gg> ")
    p.send("second\r")
    p.expect("working")
    p.send("turn left\r")
    p.expect("queued steer: turn left")
    (real_env.ws / "go").touch()
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
    p.send("\x04")
    assert p.wait() == 0
    assert not real_env.model.mismatches
    # Every turn went to the one session: the last request carries the whole conversation.
    users = [m["content"] for m in real_env.model.requests[-1]["messages"] if m["role"] == "user"]
    assert users[:2] == ["first", "second"] and users[-1] == "fourth"
    assert "turn left" in users and "third" in users
    history = real_env.home / "history"
    assert "fourth" in history.read_text()
    assert history.stat().st_mode & 0o777 == 0o600


def test_markdown_is_coloured_on_a_tty_unless_no_color(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "# Echo\nyou said"}, {"text": "# Echo\nyou said"}])
    real_env.env.pop("NO_COLOR")
    p = real_env.pty("-p", "hi")
    assert p.wait() == 0
    p.expect("you said")
    assert "\x1b[0;1;35m# Echo" in p.raw or "\x1b[1;35m# Echo" in p.raw.replace("\x1b[0m", "")
    real_env.env["NO_COLOR"] = "1"
    q = real_env.pty("-p", "hi")
    assert q.wait() == 0
    q.expect("you said")
    assert "\x1b[1" not in q.raw.split("# Echo")[1]
