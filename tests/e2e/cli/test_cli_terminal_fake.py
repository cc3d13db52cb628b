"""gg's terminal behaviour against the keyword-scripted stand-in daemon (deterministic runs)."""

from __future__ import annotations

import json

import pytest

from .conftest import CliEnv, fake_runs

MODES = {"daemon": [], "no-daemon": ["--no-daemon"]}


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> list[str]:
    """Run each test through the auto-started daemon and through a private child."""
    return list(MODES[request.param])


@pytest.mark.parametrize(
    ("answer", "verdict", "scope"),
    [
        ("y", "allowed \\(once\\)", "once"),
        ("a", "allowed \\(session\\)", "session"),
        ("n", "denied", None),
    ],
)
def test_approval_prompt_shows_diff_and_sends_answer(
    fake_env: CliEnv, mode: list[str], answer: str, verdict: str, scope: str | None
) -> None:
    p = fake_env.pty(*mode, "-p", "change it #approve")
    p.expect(r"\? approve edit: edit a\.txt")
    p.expect(r"risk: normal \(writes a file\)")
    p.expect(r"\+\+\+ b/a\.txt")
    p.expect(r"-old\n\s+\+new")
    p.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways this session:")
    p.send(answer + "\r")
    p.expect(verdict)
    assert p.wait() == 0
    run = fake_runs(fake_env)[0]
    assert run["interactive"] is True


def test_approval_prompt_rejects_other_answers(fake_env: CliEnv) -> None:
    p = fake_env.pty("-p", "change it #approve")
    p.expect(r"allow\?")
    p.send("maybe\r")
    p.expect("please answer y, n or a")
    p.send("y\r")
    p.expect(r"edit allowed \(once\)")
    assert p.wait() == 0


def test_ctrl_c_cancels_the_run_and_exits_130(fake_env: CliEnv, mode: list[str]) -> None:
    p = fake_env.pty(*mode, "-p", "#wait")
    p.expect("working")
    p.send("\x03")
    p.expect("canceling the run")
    assert p.wait() == 130


def test_ctrl_c_during_approval_cancels(fake_env: CliEnv) -> None:
    p = fake_env.pty("-p", "#approve")
    p.expect(r"allow\?")
    p.send("\x03")
    assert p.wait() == 130


def test_interactive_steering_and_ctrl_c_keeps_the_session(
    fake_env: CliEnv, mode: list[str]
) -> None:
    p = fake_env.pty(*mode)
    p.expect("/help for commands")
    p.expect("gg> ")
    p.send("start #wait\r")
    p.expect("working")
    p.send("turn left\r")
    p.expect("steering")
    p.expect("steered: turn left")
    p.expect("gg> ")
    p.send("again #wait\r")
    p.expect("working")
    p.send("\x03")
    p.expect("canceling")
    p.expect("gg> ")
    p.send("hello there\r")
    p.expect("you said: hello there")
    p.expect("gg> ")
    p.send("\x04")
    assert p.wait() == 0
    runs = fake_runs(fake_env)
    assert [r["prompt"] for r in runs] == ["start #wait", "again #wait", "hello there"]
    assert len({r["sessionId"] for r in runs}) == 1
    assert all(r["interactive"] for r in runs)
    history = fake_env.home / "history"
    assert "hello there" in history.read_text()
    assert history.stat().st_mode & 0o777 == 0o600


def test_slash_commands(fake_env: CliEnv) -> None:
    p = fake_env.pty()
    p.expect("gg> ")
    p.send("first\r")
    p.expect("you said: first")
    p.expect("gg> ")
    p.send("/name my work\r")
    p.expect("renamed to my work")
    p.expect("gg> ")
    p.send("/tree\r")
    user_id = p.expect(r"\* (m\w+) user: first").group(1)
    p.expect(r"\* +(m\w+) assistant: # Echo")
    p.expect("gg> ")
    for command, answer in [
        ("/model", "model: fake:fake-model\navailable: fake:fake-model, fake:other"),
        ("/model fake:other", "model for the next turns: fake:other"),
        ("/compact", "/compact is not supported by this ggd yet"),
        ("/context", "/context is not supported by this ggd yet"),
        ("/bogus", "unknown command /bogus"),
        (f"/checkout {user_id}", f"head moved to {user_id}"),
    ]:
        p.send(command + "\r")
        p.expect(answer)
        p.expect("gg> ")
    p.expect("first")  # the checked-out user message comes back as a draft
    p.send("\x15")  # Ctrl+U: clear the draft
    for command, answer in [
        ("/fork", "forked into session my work"),
        ("/sessions", r"my work\s+2 msgs"),
        ("/new scratch", "new session scratch"),
        ("/help", "/checkout ID"),
        ("second", "you said: second"),
        ("/checkout nope", "no such entry"),
    ]:
        p.send(command + "\r")
        p.expect(answer)
        p.expect("gg> ")
    p.send("/quit\r")
    assert p.wait() == 0
    runs = fake_runs(fake_env)
    assert runs[-1]["model"] == "fake:other"
    assert runs[-1]["sessionId"] != runs[0]["sessionId"]


def test_pipe_prompt_answer_on_stdout_tools_on_stderr(fake_env: CliEnv, mode: list[str]) -> None:
    r = fake_env.run(*mode, "-p", "hello")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "# Echo\n\nyou said: hello\n"  # a blank line after tool calls
    assert "✓ read a.txt" in r.stderr
    assert fake_runs(fake_env)[0]["interactive"] is False


def test_prompt_from_stdin_and_words(fake_env: CliEnv, mode: list[str]) -> None:
    r = fake_env.run(*mode, input="from the pipe\n")
    assert r.returncode == 0, r.stderr
    assert "you said: from the pipe" in r.stdout
    r = fake_env.run(*mode, "two", "words")
    assert "you said: two words" in r.stdout


def test_json_lines_are_the_run_events(fake_env: CliEnv, mode: list[str]) -> None:
    r = fake_env.run(*mode, "--json", "-p", "hi")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run_started"
    assert events[-1]["type"] == "run_completed"
    assert {e["runId"] for e in events} == {events[0]["runId"]}


def test_failed_run_exits_1_with_the_error(fake_env: CliEnv, mode: list[str]) -> None:
    r = fake_env.run(*mode, "-p", "boom #fail")
    assert r.returncode == 1
    assert "gg: error: model exploded" in r.stderr


def test_demo_notice(fake_env: CliEnv) -> None:
    fake_env.env["FAKE_GGD_DEMO"] = "1"
    r = fake_env.run("--no-daemon", "-p", "hi")
    assert "demo model is answering" in r.stderr
    assert "demo" not in r.stdout


def test_flags_reach_the_daemon(fake_env: CliEnv) -> None:
    r = fake_env.run("--no-daemon", "--yolo", "--model", "fake:other", "--name", "n1", "-p", "x")
    assert r.returncode == 0, r.stderr
    run = fake_runs(fake_env)[0]
    assert run["approvalMode"] == "yolo"
    assert run["model"] == "fake:other"
    assert run["subscribe"] is True
    r = fake_env.run("--approval", "never", "-p", "y")
    assert fake_runs(fake_env)[1]["approvalMode"] == "never"


def test_continue_and_resume(fake_env: CliEnv) -> None:
    fake_env.run("-p", "one")
    first = fake_runs(fake_env)[0]["sessionId"]
    fake_env.run("-p", "two")
    second = fake_runs(fake_env)[1]["sessionId"]
    assert first != second
    fake_env.run("--continue", "-p", "three")
    assert fake_runs(fake_env)[2]["sessionId"] == second
    fake_env.run("--resume", first, "-p", "four")
    assert fake_runs(fake_env)[3]["sessionId"] == first
    r = fake_env.run("--resume", "nope", "-p", "five")
    assert r.returncode == 1
    assert "session not found" in r.stderr
    r = fake_env.run("sessions", "list", "--json")
    ids = [s["id"] for s in json.loads(r.stdout)]
    assert set(ids) == {first, second}


def test_markdown_is_coloured_on_a_tty_unless_no_color(fake_env: CliEnv) -> None:
    fake_env.env.pop("NO_COLOR")
    p = fake_env.pty("-p", "hi")
    assert p.wait() == 0
    p.expect("you said")
    assert "\x1b[0;1;35m# Echo" in p.raw or "\x1b[1;35m# Echo" in p.raw.replace("\x1b[0m", "")
    fake_env.env["NO_COLOR"] = "1"
    q = fake_env.pty("-p", "hi")
    assert q.wait() == 0
    q.expect("you said")
    assert "\x1b[1" not in q.raw.split("# Echo")[1]
