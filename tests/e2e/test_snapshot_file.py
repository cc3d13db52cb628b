"""gg/session.open through a real ggd with the derived snapshot file: warm after a run, never stale."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from ggd.app.snapshot_file import SNAPSHOT
from ggd.session import SessionRepository
from ggd.session.derived import stamp_of

from .daemon import wait_until
from .runs_helpers import finish, new_session, start


def _current(home: Path, sid: str) -> bool:
    """Whether the session's snapshot file matches its JSONL as it is on disk now."""
    jsonl = home / "sessions" / f"{sid}.jsonl"
    data = jsonl.read_bytes()
    stamp = stamp_of(jsonl, data[-32:])
    return stamp is not None and SNAPSHOT.load(jsonl, stamp) is not None


def _contents(snap: dict[str, Any]) -> list[str]:
    return [m.get("content") or "" for m in snap["messages"]]


async def test_open_after_a_run_reads_the_warm_file_and_sees_every_later_change(
    fake_daemon: Any, gg_home: Path
) -> None:
    d, _fm = fake_daemon([{"text": "first answer"}, {"text": "second answer"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        assert (await finish(c, await start(c, sid, "question one")))["type"] == "run_completed"
        # refreshed off the loop once the run ended: the next open is a hit
        await wait_until(lambda: _current(gg_home, sid))
        snap_path = gg_home / "sessions" / f"{sid}.snap"
        assert stat.S_IMODE(snap_path.stat().st_mode) == 0o600
        opened = await c.request("gg/session.open", {"sessionId": sid})
        assert _contents(opened) == ["question one", "first answer"]
        assert opened == await c.request("gg/session.get", {"sessionId": sid})
    finally:
        await c.close()
    d.stop()

    # another writer appends while no daemon runs; the file on disk is then stale
    repo = SessionRepository(gg_home / "sessions")
    repo.open(sid).append("message", {"role": "user", "content": "by hand", "timestamp": 3})
    assert not _current(gg_home, sid)
    d2, _ = fake_daemon([{"text": "second answer"}])
    c = await d2.connect("ws")
    try:
        reopened = await c.request("gg/session.open", {"sessionId": sid})
        assert _contents(reopened) == ["question one", "first answer", "by hand"]
        assert _current(gg_home, sid)  # rebuilt and stored by that open
        again = await c.request("gg/session.open", {"sessionId": sid})
        assert again == reopened
        # a checkout through the daemon: its answer and the next open show the new branch
        first_user = reopened["messages"][0]["id"]
        moved = await c.request(
            "gg/session.action", {"sessionId": sid, "action": "tree", "nodeId": first_user}
        )
        assert moved["messages"] == [] and moved["draft"] == "question one"
        after = await c.request("gg/session.open", {"sessionId": sid})
        assert after["messages"] == [] and len(after["tree"]) == 3
    finally:
        await c.close()
    d2.stop()

    # a torn tail left by a dead writer: the next daemon repairs it and serves the repaired file
    jsonl = gg_home / "sessions" / f"{sid}.jsonl"
    good = jsonl.stat().st_size
    with open(jsonl, "ab") as f:
        f.write(b'{"type":"message","id":"deadbeef","parentId":null,"timesta')
    d3, _ = fake_daemon([{"text": "x"}])
    c = await d3.connect("stdio")
    try:
        repaired = await c.request("gg/session.open", {"sessionId": sid})
        assert repaired == after
        assert jsonl.stat().st_size == good
    finally:
        await c.close()


async def test_a_deleted_snapshot_file_is_only_a_slower_open(
    fake_daemon: Any, gg_home: Path
) -> None:
    d, _fm = fake_daemon([{"text": "answer"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        assert (await finish(c, await start(c, sid, "hello")))["type"] == "run_completed"
        await wait_until(lambda: _current(gg_home, sid))
        before = await c.request("gg/session.open", {"sessionId": sid})
        (gg_home / "sessions" / f"{sid}.snap").unlink()
        assert await c.request("gg/session.open", {"sessionId": sid}) == before
        (gg_home / "sessions" / f"{sid}.snap").write_bytes(b"garbage")
        assert await c.request("gg/session.open", {"sessionId": sid}) == before
        assert _current(gg_home, sid)
    finally:
        await c.close()
