"""A write of the content a file already has needs no approval and does nothing; a file that
changes between the check and the run is never written unapproved. A real ggd, real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .runs_helpers import finish, new_session, start, until


def write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write", "arguments": {"path": path, "content": content}}


def finishes(c: Any, rid: str) -> list[dict[str, Any]]:
    return [e for e in c.events(run_id=rid) if e["type"] == "tool_call_finish"]


def asked(c: Any, rid: str) -> list[dict[str, Any]]:
    return [e for e in c.events(run_id=rid) if e["type"] == "approval_requested"]


async def test_a_write_that_changes_nothing_asks_nothing(fake_daemon, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    notes.write_text("same\n")
    before = notes.stat().st_mtime_ns
    d, fm = fake_daemon(
        [
            {"toolCalls": [write("notes.txt", "same\n")]},
            {"expect": {"lastTool": "Unchanged"}, "text": "Nothing to do."},
        ]
    )
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "write notes", interactive=True)
        done = await finish(c, rid)
        assert done["type"] == "run_completed", done
        assert asked(c, rid) == []
        (result,) = finishes(c, rid)
        assert not result["isError"]
        assert (
            result["output"]
            == "Unchanged notes.txt: it already has exactly this content (5 bytes)."
        )
        assert result["details"]["unchanged"] is True
        assert notes.stat().st_mtime_ns == before  # not even rewritten
        assert fm.mismatches == []
    finally:
        await c.close()


async def test_a_file_changed_after_the_check_is_not_written_unapproved(
    fake_daemon, workspace: Path
) -> None:
    f = workspace / "f.txt"
    f.write_text("old\n")
    # Both calls are checked before either runs: the second sees "old" (no approval needed),
    # then the first, approved, writes "new". Writing "old" back now would be unapproved.
    d, fm = fake_daemon(
        [
            {"toolCalls": [write("f.txt", "new\n"), write("f.txt", "old\n")]},
            {"expect": {"lastTool": "call write again"}, "text": "The file changed."},
        ]
    )
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "write twice", interactive=True)
        ask = await until(c, rid, "approval_requested")
        assert ask["approval"]["toolName"] == "write"
        assert "new" in (ask["approval"]["details"] or "")
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        done = await finish(c, rid)
        assert done["type"] == "run_completed", done
        assert len(asked(c, rid)) == 1
        first, second = finishes(c, rid)
        assert not first["isError"] and first["output"].startswith("Overwrote f.txt")
        assert second["isError"] and "the file changed; call write again" in second["output"]
        assert f.read_text() == "new\n"
        assert fm.mismatches == []
    finally:
        await c.close()
