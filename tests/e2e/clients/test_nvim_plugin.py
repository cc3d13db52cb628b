"""The Neovim plugin against a scripted stand-in server (fast, deterministic behaviour checks)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent


def _fake(
    tmp_path: Path, gg_home: Path, protocol: str = "1.0"
) -> tuple[list[str], dict[str, str], Path]:
    log = tmp_path / "requests.jsonl"
    env = {"FAKE_GGD_LOG": str(log), "FAKE_GGD_PROTOCOL": protocol, "GG_HOME": str(gg_home)}
    return [sys.executable, str(HERE / "fake_ggd.py")], env, log


def _requests(log: Path, method: str) -> list[dict[str, Any]]:
    msgs = [json.loads(line) for line in log.read_text().splitlines()]
    return [m.get("params") or {} for m in msgs if m.get("method") == method]


def test_stream_into_markdown_buffer_and_continue(run_nvim, tmp_path, gg_home, workspace) -> None:
    cmd, env, log = _fake(tmp_path, gg_home)
    res = run_nvim(
        {
            "scenario": "stream",
            "cmd": cmd,
            "root": str(workspace),
            "prompt": "say hi",
            "prompt2": "again",
            "expect": ["## gg\n\nHello from the fake.\nSecond line.\n\n---"],
        },
        env,
    )
    assert res.ok, res.error
    init = _requests(log, "initialize")[0]
    assert init["rootUri"] == workspace.as_uri()
    starts = _requests(log, "gg/run.start")
    assert [s["prompt"] for s in starts] == ["say hi", "again"]
    assert all(s["interactive"] is True for s in starts)
    assert starts[0]["sessionId"] == starts[1]["sessionId"]
    assert len(_requests(log, "gg/session.create")) == 1


@pytest.mark.parametrize(
    ("choice", "allow", "scope", "expect"),
    [
        ("Allow", True, "once", "All done."),
        ("Allow for session", True, "session", "All done."),
        ("Deny", False, "once", "OK, not writing."),
    ],
)
def test_approval_prompt_answers_through_run_approve(
    run_nvim, tmp_path, gg_home, workspace, choice, allow, scope, expect
) -> None:
    cmd, env, log = _fake(tmp_path, gg_home)
    res = run_nvim(
        {
            "scenario": "approve_select",
            "cmd": cmd,
            "root": str(workspace),
            "prompt": "approve please",
            "choice": choice,
            "expect": ["**Approval needed:**", "```diff\n+hello\n```", expect],
        },
        env,
    )
    assert res.ok, res.error
    assert "write notes.txt" in res.data["selects"][0]["prompt"]
    (approve,) = _requests(log, "gg/run.approve")
    assert approve == {
        "runId": approve["runId"],
        "approvalId": "ap1",
        "allow": allow,
        "scope": scope,
    }


@pytest.mark.parametrize(
    ("command", "expect"),
    [("GGApprove", "_Approval allowed (user)._"), ("GGDeny", "_Approval denied (user)._")],
)
def test_approve_and_deny_commands(run_nvim, tmp_path, gg_home, workspace, command, expect) -> None:
    cmd, env, log = _fake(tmp_path, gg_home)
    res = run_nvim(
        {
            "scenario": "approve_command",
            "cmd": cmd,
            "root": str(workspace),
            "prompt": "approve please",
            "command": command,
            "expect": [expect],
        },
        env,
    )
    assert res.ok, res.error
    (approve,) = _requests(log, "gg/run.approve")
    assert approve["allow"] is (command == "GGApprove")


def test_cancel_stops_the_run(run_nvim, tmp_path, gg_home, workspace) -> None:
    cmd, env, log = _fake(tmp_path, gg_home)
    res = run_nvim(
        {
            "scenario": "cancel",
            "cmd": cmd,
            "root": str(workspace),
            "prompt": "hang on",
            "expect_before": "Thinking.",
        },
        env,
    )
    assert res.ok, res.error
    (cancel,) = _requests(log, "gg/run.cancel")
    assert cancel["runId"].startswith("r")  # the fake's run ids
    assert "Thinking." in res.data["buffer"]


def test_sessions_picker_reopens_a_session(run_nvim, tmp_path, gg_home, workspace) -> None:
    cmd, env, log = _fake(tmp_path, gg_home)
    res = run_nvim(
        {"scenario": "sessions", "cmd": cmd, "root": str(workspace), "prompt": "first question"},
        env,
    )
    assert res.ok, res.error
    assert len(_requests(log, "gg/session.open")) == 1


def test_other_protocol_major_is_refused(run_nvim, tmp_path, gg_home, workspace) -> None:
    cmd, env, log = _fake(tmp_path, gg_home, protocol="2.0")
    res = run_nvim({"scenario": "version", "cmd": cmd, "root": str(workspace)}, env)
    assert res.ok, res.error
    assert _requests(log, "gg/session.create") == []


def test_buffer_layout(run_nvim, tmp_path, gg_home, workspace) -> None:
    cmd, env, _ = _fake(tmp_path, gg_home)
    res = run_nvim(
        {
            "scenario": "approve_select",
            "cmd": cmd,
            "root": str(workspace),
            "prompt": "approve please",
            "choice": "Allow",
        },
        env,
    )
    assert res.ok, res.error
    assert res.data["buffer"] == (
        "## You\n\napprove please\n\n## gg\n\nI will write a file.\n\n"
        "**Approval needed:** gg wants to run write: write notes.txt (:GGApprove / :GGDeny)\n```diff\n+hello\n```\n\n"
        "_Approval allowed (user)._\n\n- tool `write`: write notes.txt\n\n  `write` done: wrote 5 bytes\n\nAll done.\n\n---"
    )


def test_pure_helpers(run_nvim, workspace) -> None:
    res = run_nvim({"scenario": "util", "cmd": ["false"], "root": str(workspace)}, {})
    assert res.ok, res.error


@pytest.mark.parametrize("ring", ["0", "1"])
def test_reopening_a_running_session_follows_it(
    run_nvim, tmp_path, gg_home, workspace, ring
) -> None:
    cmd, env, log = _fake(tmp_path, gg_home)
    env["FAKE_GGD_RING"] = ring  # "1": the replay from 0 has expired, the plugin must resync
    res = run_nvim(
        {"scenario": "reopen_running", "cmd": cmd, "root": str(workspace), "prompt": "hang on"}, env
    )
    assert res.ok, res.error
    subs = _requests(log, "gg/run.subscribe")
    assert subs[0]["afterSequence"] == 0
    if ring == "1":
        assert len(subs) == 2 and subs[1]["afterSequence"] > 0
        assert len(_requests(log, "gg/run.get")) == 1
    else:
        assert len(subs) == 1
