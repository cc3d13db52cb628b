"""The Neovim plugin driving a real `ggd --stdio`; a scripted fake model decides what the agent does."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.rpc_client import RpcClient
from tests.fakes.fake_openai import FakeModel


def write(path: str, content: str = "hello\n") -> dict[str, Any]:
    """A model step that calls the write tool once."""
    return {
        "toolCalls": [{"name": "write", "arguments": {"path": path, "content": content}}],
        "chunkSize": 7,
    }


WRITE = write("notes.txt")


def _env(fm: FakeModel, gg_home: Path) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": fm.base_url,
        "OPENAI_API_KEY": "test",
        "GG_MODEL": "fake-model",
        "GG_HOME": str(gg_home),
    }


def _stdio(ggd_bin: Path, workspace: Path) -> list[str]:
    return [str(ggd_bin), "--stdio", "--exit-on-stdin-eof", "--workspace", str(workspace)]


def _messages(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of the chat messages one model request carried."""
    out: list[tuple[str, str]] = []
    for m in request["messages"]:
        content = m.get("content") or ""
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content)
        out.append((m["role"], content))
    return out


def _afterwards(
    ggd_bin: Path, gg_home: Path, workspace: Path, session_id: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Once nvim is gone, ask a fresh ggd what it stored: (session list, snapshot of session_id)."""

    async def go() -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        c = await RpcClient.stdio(
            [*_stdio(ggd_bin, workspace)], {**os.environ, "GG_HOME": str(gg_home)}
        )
        try:
            await c.initialize(workspace)
            listed = (await c.request("gg/session.list", {}))["sessions"]
            snap = None
            if session_id is not None:
                snap = await c.request("gg/session.get", {"sessionId": session_id})
            return listed, snap
        finally:
            await c.close()

    return asyncio.run(go())


def test_streams_into_the_chat_buffer_and_continues_the_session(
    run_nvim, model, gg_home, workspace, ggd_bin
) -> None:
    fm = model(
        [
            {"text": "Hello from the fake.\nSecond line.", "chunkSize": 4},
            {"text": "Again here.", "expect": {"lastUser": "again"}},
        ]
    )
    res = run_nvim(
        {
            "scenario": "stream",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "say hi",
            "prompt2": "again",
            "expect": ["## gg\n\nHello from the fake.\nSecond line.\n\n---"],
            "expect2": ["## You\n\nagain\n\n## gg\n\nAgain here.\n\n---"],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert fm.mismatches == []
    first, second = fm.requests
    # The second :GG continued the same conversation: the model saw the first turn again.
    assert ("user", "say hi") in _messages(first)
    history = _messages(second)
    assert history.index(("user", "say hi")) < history.index(("user", "again"))
    assert ("assistant", "Hello from the fake.\nSecond line.") in history
    # Exactly one session was created, holding both turns.
    listed, snap = _afterwards(ggd_bin, gg_home, workspace, res.data["session_id"])
    assert [s["id"] for s in listed] == [res.data["session_id"]]
    assert snap is not None
    assert snap["workspace"]["name"] == workspace.name
    assert [(m["role"], m["content"]) for m in snap["messages"]] == [
        ("user", "say hi"),
        ("assistant", "Hello from the fake.\nSecond line."),
        ("user", "again"),
        ("assistant", "Again here."),
    ]


@pytest.mark.parametrize(
    ("choice", "asked", "written"),
    [("Allow", 2, True), ("Allow for session", 1, True), ("Deny", 2, False)],
)
def test_approval_prompt_answers_the_daemon(
    run_nvim, model, gg_home, workspace, ggd_bin, choice, asked, written
) -> None:
    (workspace / "more.txt").write_text("old\n")
    fm = model([WRITE, write("more.txt", "more\n"), {"text": "Finished the turn."}])
    res = run_nvim(
        {
            "scenario": "approve_select",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "write notes",
            "choice": choice,
            "expect": [
                "**Approval needed:** gg wants to run write: write notes.txt (create)",
                "```\nhello\n```",  # a written file shows its content (not fenced as a diff)
                "Finished the turn.",
            ],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    # "Allow for session" also answered the second write; "Allow" and "Deny" are asked again.
    assert len(res.data["selects"]) == asked
    assert (workspace / "notes.txt").exists() is written
    assert (workspace / "more.txt").read_text() == ("more\n" if written else "old\n")
    if written:
        assert (workspace / "notes.txt").read_text() == "hello\n"
    else:
        tool_result = [m for m in fm.requests[1]["messages"] if m["role"] == "tool"][-1]
        assert "denied" in json.dumps(tool_result).lower()


@pytest.mark.parametrize(
    ("command", "expect", "content"),
    [
        ("GGApprove", "_Approval allowed (user)._", "new\n"),
        ("GGDeny", "_Approval denied (user)._", "old\n"),
    ],
)
def test_approve_and_deny_commands_answer_the_pending_approval(
    run_nvim, model, gg_home, workspace, ggd_bin, command, expect, content
) -> None:
    (workspace / "notes.txt").write_text("old\n")
    edit = {"path": "notes.txt", "edits": [{"oldText": "old", "newText": "new"}]}
    fm = model([{"toolCalls": [{"name": "edit", "arguments": edit}]}, {"text": "Turn over."}])
    res = run_nvim(
        {
            "scenario": "approve_command",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "edit notes",
            "command": command,
            "expect": ["```diff\n--- a/notes.txt\n+++ b/notes.txt\n", expect, "Turn over."],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert (workspace / "notes.txt").read_text() == content


def test_buffer_layout_of_an_approved_tool_turn(
    run_nvim, model, gg_home, workspace, ggd_bin
) -> None:
    fm = model([{"text": "I will write a file.", **WRITE}, {"text": "All done."}])
    res = run_nvim(
        {
            "scenario": "approve_select",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "approve please",
            "choice": "Allow",
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert res.data["buffer"] == (
        "## You\n\napprove please\n\n## gg\n\nI will write a file.\n\n"
        "**Approval needed:** gg wants to run write: write notes.txt (create)"
        " (changes a workspace file) (:GGApprove / :GGDeny)\n```\nhello\n```\n\n"
        "_Approval allowed (user)._\n\n- tool `write`: write notes.txt\n\n"
        "  `write` done: Created notes.txt (6 bytes).\n\nAll done.\n\n---"
    )


def test_cancel_stops_a_streaming_run(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model([{"text": "Thinking about it for a long while", "chunkSize": 3, "hang": True}])
    res = run_nvim(
        {
            "scenario": "cancel",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "take your time",
            "expect_before": "Thinking",
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert "## gg\n\nThinking" in res.data["buffer"]
    assert len(fm.requests) == 1


def test_sessions_picker_reopens_a_session(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model([{"text": "First answer."}])
    res = run_nvim(
        {
            "scenario": "sessions",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "first question",
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    # The answer comes back from the daemon's snapshot of the reopened session.
    assert "## gg\n\nFirst answer." in res.data["buffer"]


def test_sessions_without_runs(run_nvim, gg_home, workspace, ggd_bin) -> None:
    res = run_nvim(
        {"scenario": "new_and_pick", "cmd": _stdio(ggd_bin, workspace), "root": str(workspace)},
        {"GG_HOME": str(gg_home)},
    )
    assert res.ok, res.error
    assert res.data["workspace"]["name"] == workspace.name


def test_gg_while_running_steers_the_turn(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model(
        [
            {
                "text": "Looking around first.",
                "chunkSize": 4,
                "delayMs": 150,
                "toolCalls": [{"name": "list", "arguments": {"path": "."}}],
            },
            {"text": "Steered answer.", "expect": {"lastUser": "also check the README"}},
        ]
    )
    res = run_nvim(
        {
            "scenario": "steer",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "look around",
            "steer": "also check the README",
            "expect_before": "Look",
            "expect": ["Steered answer."],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert fm.mismatches == []


def test_another_protocol_major_is_refused(run_nvim, gg_home, workspace, ggd_bin) -> None:
    # The plugin is told it speaks 2.x, so the real daemon's 1.x answer is the foreign major.
    res = run_nvim(
        {
            "scenario": "version",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "protocol_major": "2",
        },
        {"GG_HOME": str(gg_home)},
    )
    assert res.ok, res.error
    (note,) = [n["msg"] for n in res.data["notes"] if "unsupported gg protocol" in n["msg"]]
    assert note == "gg: unsupported gg protocol 1.0 (this plugin speaks 2.x)"
    assert _afterwards(ggd_bin, gg_home, workspace)[0] == []


def test_pure_helpers(run_nvim, workspace) -> None:
    res = run_nvim({"scenario": "util", "cmd": ["false"], "root": str(workspace)}, {})
    assert res.ok, res.error


def test_files_diff_undo_redo(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model([WRITE, {"text": "Wrote the notes."}])
    res = run_nvim(
        {
            "scenario": "files",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "write notes",
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert "A" in res.data["diff"] and "notes.txt" in res.data["diff"]
    assert "+hello" in res.data["diff"]
    assert res.data["after_undo"].startswith("undo: 1 file(s) would change")
    assert res.data["exists_after_undo"] is False
    assert res.data["after_redo"] == "hello\n"


def test_a_priced_run_ends_with_its_tokens_and_cost(
    run_nvim, model, gg_home, workspace, ggd_bin
) -> None:
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    prices = {"openai:fake-model": {"input": 2, "cachedInput": 0.5, "output": 8}}
    (gg_home / "config.json").write_text(json.dumps({"prices": prices}))
    usage = {"prompt": 1000, "completion": 100, "cached": 800}  # $0.0016
    fm = model([{"text": "Priced.", "usage": usage}, {"text": "Again.", "usage": usage}])
    res = run_nvim(
        {
            "scenario": "stream",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "hi",
            "prompt2": "again",
            "expect": ["## gg\n\nPriced.\n\n_1100 tokens (800 cached) · $0.0016_\n\n---"],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
