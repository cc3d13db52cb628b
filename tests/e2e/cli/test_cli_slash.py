"""gg's interactive slash commands against the real ggd, including /compact and /context."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import CliEnv, last_user, strip_ansi

pytestmark = pytest.mark.timeout(90)
TURNS = 8
SUMMARY = "SUMMARY: eight greetings exchanged."


def users(request: dict[str, Any]) -> list[str]:
    """The user messages the model was sent, in order."""
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


@pytest.mark.parametrize("mode", [[], ["--no-daemon"]], ids=["daemon", "no-daemon"])
def test_session_commands_before_any_turn(real_env: CliEnv, mode: list[str]) -> None:
    p = real_env.pty(*mode, "--name", "first")
    p.expect("session first")
    p.expect("gg> ")
    for command, answer in [
        ("/name renamed", "renamed to renamed"),
        ("/tree", r"\(empty session\)"),
        ("/sessions", r"renamed\s+0 msgs"),
        ("/model", "model: openai:fake-model\n.*available: openai:fake-model, demo:gg-demo"),
        ("/context", r"context: \d+ of [\d,]+ tokens \(\d+%\) · 0 messages in context"),
        ("/compact", "nothing to compact yet"),
        ("/bogus", r"unknown command /bogus \(try /help\)"),
        ("/clone", "cloned into session renamed"),
        ("/new other", "new session other"),
        ("/resume nope", "gg: no session"),
        ("/checkout", "usage: /checkout ID"),
    ]:
        p.send(command + "\r")
        p.expect(answer)
        p.expect("gg> ")
    p.send("\x04")
    assert p.wait() == 0
    names = {s["name"] for s in json.loads(real_env.run("sessions", "list", "--json").stdout)}
    assert {"renamed", "other"} <= names
    assert real_env.model.requests == []  # none of these asked the model anything


def test_turns_context_compact_tree_checkout_fork_and_new(real_env: CliEnv) -> None:
    steps: list[dict[str, Any]] = [{"text": f"answer {i} " + "words " * 50} for i in range(TURNS)]
    steps.append({"expect": {"lastUser": "hello 0"}, "text": SUMMARY})
    steps += [{"text": "on the branch"}, {"text": "in scratch"}]
    real_env.model.add_steps(steps)
    p = real_env.pty("--name", "my work")
    p.expect("gg> ")
    for i in range(TURNS):
        p.send(f"hello {i}\r")
        p.expect(f"answer {i}")
        p.expect("gg> ")
    p.send("/context\r")
    before = p.expect(r"context: (\d+) of [\d,]+ tokens \(\d+%\) · 16 messages in context")
    assert "summarised" not in p.text.splitlines()[-2]
    p.expect("gg> ")
    p.send("/compact keep the greetings\r")
    p.expect("context compacted")
    p.expect(SUMMARY)
    after = p.expect(r"context: (\d+) of .* · (\d+) messages in context · older turns summarised")
    assert int(after.group(1)) < int(before.group(1)) and int(after.group(2)) < 16
    p.expect("gg> ")
    summarise = real_env.model.requests[-1]
    assert "keep the greetings" in json.dumps(summarise["messages"])
    assert "hello 1" in summarise["messages"][-1]["content"]
    p.send("/tree\r")
    p.expect(r"\n● \S+ user: hello 0")
    p.expect(r"┆ … \d+ more messages")  # a long straight run is collapsed in the middle
    last = p.expect(r"\n● (\S+) user: hello 7").group(1)
    p.expect(r"● \S+ assistant: answer 7 .* ◀ head")
    p.expect("gg> ")
    p.send(f"/checkout {last}\r")
    p.expect(f"head moved to {last}")
    p.expect("gg> hello 7")  # the checked-out user message comes back as an editable draft
    p.send("\x15")  # Ctrl+U: clear the draft
    p.send("/model openai:other\r")
    p.expect("model for the next turns: openai:other")
    p.expect("gg> ")
    p.send("branch\r")
    p.expect("on the branch")
    p.expect("gg> ")
    branch = real_env.model.requests[-1]
    assert branch["model"] == "other" and last_user(branch) == "branch"
    # The branch leaves off before hello 7 (and before the summary entry recorded after it).
    assert users(branch) == [f"hello {i}" for i in range(TURNS - 1)] + ["branch"]
    p.send("/tree\r")
    p.expect(r"\n├─○ \S+ user: hello 7")  # the old branch stays, drawn where it splits
    p.expect(r"\n│ ○ \S+ assistant: answer 7 ")
    p.expect(r"\n└─● \S+ user: branch\n")
    p.expect(r"  ● \S+ assistant: on the branch ◀ head")
    assert p.text.count("◀ head") == 2  # once per /tree
    p.expect("gg> ")
    for command, answer in [
        ("/fork", r"Forked into “my work \(fork\)” \(s_\w+\)"),
        ("/clone", r"Cloned into “my work \(clone\)” \(s_\w+\)"),
        ("/sessions", r"my work\s+\d+ msgs"),
        ("/checkout nope", "gg: no node 'nope' in this session"),
        ("/new scratch", "new session scratch"),
        ("/help", "/checkout ID"),
        ("fresh start", "in scratch"),
    ]:
        p.send(command + "\r")
        p.expect(answer)
        p.expect("gg> ")
    assert users(real_env.model.requests[-1]) == ["fresh start"]  # a new, empty session
    assert strip_ansi(p.text).lower().count("forked into") == 1  # said once, not twice
    p.send("/quit\r")
    assert p.wait() == 0
    assert not real_env.model.mismatches
    sessions = json.loads(real_env.run("sessions", "list", "--json").stdout)
    # Forks and clones get distinct names (ggd.app.naming).
    assert sorted(s["name"] for s in sessions) == [
        "my work",
        "my work (clone)",
        "my work (fork)",
        "scratch",
    ]
