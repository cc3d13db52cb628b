"""The loop guard through a real ggd: a scripted model that repeats one call is told, then stopped."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from .runs_helpers import finish, new_session, start, until

# What a small model did for ten minutes: the same failing call, 205 times.
MISSING_205 = [
    {"toolCalls": [{"name": "list", "arguments": {"path": "no/such/folder"}}], "repeat": 205},
    {"text": "unreachable"},
]
# Identical calls that succeed: only the 500-turn limit stopped them before.
READ_FOREVER = [
    {"toolCalls": [{"name": "read", "arguments": {"path": "notes.txt"}}], "repeat": 50},
    {"text": "done"},
]


@asynccontextmanager
async def _client(d, kind: str) -> AsyncIterator:
    c = await d.connect(kind)
    try:
        yield c
    finally:
        await c.close()


def _tool_texts(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def test_the_205_identical_failures_stop_after_the_warning(fake_daemon) -> None:
    d, fm = fake_daemon(MISSING_205)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "list the folder no/such/folder")
        end = await finish(c, rid, timeout=60)
    assert end["type"] == "run_failed", end
    assert end["errorCode"] == "loop_detected"
    assert "loop detected" in end["error"] and "list" in end["error"]
    assert "no/such/folder" in end["error"]
    # Calls 1-3 ran (the third got the note), the fourth was refused: 4 model requests in all.
    assert len(fm.requests) == 4, len(fm.requests)
    results = _tool_texts(fm.requests[3])
    assert len(results) == 3
    assert "loop guard" not in results[0] and "loop guard" not in results[1]
    assert "[loop guard:" in results[2] and "Repeating it once more stops the run" in results[2]


async def test_identical_successful_calls_stop_with_the_named_reason(
    fake_daemon, workspace: Path, gg_home: Path
) -> None:
    (workspace / "notes.txt").write_text("hello\n")
    d, fm = fake_daemon(READ_FOREVER)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "read notes.txt")
        end = await finish(c, rid, timeout=60)
    assert end["errorCode"] == "loop_detected"
    assert "read" in end["error"] and "4 times in a row" in end["error"]
    assert len(fm.requests) == 4
    # The refused fourth call is answered in the session (no dangling call), as not run.
    session = next((gg_home / "sessions").glob("s_*.jsonl"))
    lines = [json.loads(x) for x in session.read_text().splitlines()[1:]]
    tools = [e["data"] for e in lines if e["type"] == "message" and e["data"]["role"] == "tool"]
    assert len(tools) == 4
    assert tools[-1]["isError"] and tools[-1]["content"].startswith("not run: loop detected")


async def test_an_interactive_run_asks_and_the_answer_decides(fake_daemon, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("hello\n")
    d, fm = fake_daemon(READ_FOREVER)
    async with _client(d, "ws") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "read notes.txt", interactive=True)
        ask = await until(c, rid, "approval_requested", timeout=60)
        approval = ask["approval"]
        assert approval["toolName"] == "loop_guard"
        assert approval["arguments"] == {"tool": "read", "arguments": {"path": "notes.txt"}}
        assert "loop detected" in approval["details"]
        assert len(fm.requests) == 4  # the fourth call waits for the answer
        # Allowed: the counts start again, so three more calls run before it asks again.
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": approval["id"], "allow": True}
        )
        again = await until(c, rid, "approval_requested", timeout=60, after=ask["sequence"])
        assert again["approval"]["toolName"] == "loop_guard"
        assert len(fm.requests) == 8  # calls 4-7 ran; the fourth after the reset asks again
        await c.request(
            "gg/run.approve",
            {"runId": rid, "approvalId": again["approval"]["id"], "allow": False},
        )
        end = await finish(c, rid, timeout=60)
    assert end["errorCode"] == "loop_detected"


async def test_loop_guard_off_in_config_lets_the_calls_run(
    fake_daemon, workspace: Path, gg_home: Path
) -> None:
    (workspace / "notes.txt").write_text("hello\n")
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(json.dumps({"loopGuard": {"enabled": False}}))
    script = [
        {"toolCalls": [{"name": "read", "arguments": {"path": "notes.txt"}}], "repeat": 6},
        {"text": "done"},
    ]
    d, fm = fake_daemon(script)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        end = await finish(c, await start(c, sid, "read"), timeout=60)
    assert end["type"] == "run_completed", end
    assert len(fm.requests) == 7
