"""Manager releases the entries of idle sessions beyond the hot ones; the next use rebuilds them."""

from __future__ import annotations

import asyncio
import threading
import tracemalloc
from pathlib import Path

from ggd.app.manager import Manager
from ggd.app.service import Service
from ggd.app.snapshot import SnapshotView
from ggd.app.transcript import SessionTranscript
from ggd.app.workspaces import WorkspaceRegistry
from ggd.session import SessionRepository

SESSIONS = 20
HOT = 4


def _fill(repo: SessionRepository, ws_id: str, n: int) -> list[str]:
    ids = []
    for i in range(n):
        sf = repo.create(ws_id, name=f"s{i}", model="demo:gg-demo")
        for j in range(40):
            sf.append("message", {"role": "user", "content": f"q{j} " + "x" * 400, "timestamp": 1})
            sf.append(
                "message", {"role": "assistant", "content": f"a{j} " + "y" * 800, "timestamp": 2}
            )
        ids.append(sf.id)
    return ids


def _setup(tmp_path: Path) -> tuple[Manager, list[str]]:
    (tmp_path / "ws").mkdir()
    workspaces = WorkspaceRegistry(tmp_path / "workspaces.json", tmp_path / "ws")
    repo = SessionRepository(tmp_path / "sessions")
    ids = _fill(repo, workspaces.default.id, SESSIONS)
    return Manager(repo, workspaces, capacity=64, hot=HOT), ids


async def test_cold_idle_sessions_release_and_reopen_to_the_same_snapshot(tmp_path: Path) -> None:
    manager, ids = _setup(tmp_path)
    before: dict[str, SnapshotView] = {}
    for sid in ids:
        before[sid] = await (await manager.get(sid)).view()
    loaded = [sid for sid in ids if manager.cached(sid).file.loaded]  # type: ignore[union-attr]
    assert loaded == ids[-HOT:]  # only the hottest keep their entries
    cold = manager.cached(ids[0])
    assert cold is not None and not cold.file.loaded
    again = await manager.get(ids[0])
    assert again is cold and again.file.loaded  # rebuilt before get() returns
    assert await again.view() == before[ids[0]]
    # it is hot now; the one that dropped out of the hot set released in its place
    assert not manager.cached(ids[-HOT]).file.loaded  # type: ignore[union-attr]


async def test_released_sessions_free_their_entries(tmp_path: Path) -> None:
    manager, ids = _setup(tmp_path)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for sid in ids:
            await manager.get(sid)
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    tracemalloc.start()
    try:
        full = Manager(manager.repo, manager.workspaces, capacity=64, hot=SESSIONS)
        base = tracemalloc.get_traced_memory()[0]
        for sid in ids:
            await full.get(sid)
        held_all = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    # 16 of 20 sessions hold only their header: well under half of keeping all 20 loaded
    assert held < held_all / 2, (held, held_all)


async def test_a_busy_session_is_not_released_and_the_rebuild_runs_off_the_loop(
    tmp_path: Path,
) -> None:
    manager, ids = _setup(tmp_path)
    first = await manager.get(ids[0])
    first.active_run_id = "r_test"  # a run is active: it keeps its entries while cold
    for sid in ids[1:]:
        await manager.get(sid)
    assert first.file.loaded
    first.active_run_id = None
    await manager.get(ids[1])  # the next pass releases it now that it is idle
    assert not first.file.loaded
    loop_thread = threading.get_ident()
    seen: list[int] = []
    restore = type(first.file)._restore

    def spy(self: object) -> object:
        seen.append(threading.get_ident())
        return restore(self)  # type: ignore[arg-type]

    type(first.file)._restore = spy  # type: ignore[method-assign]
    try:
        svc: Service = await manager.get(ids[0])
        SessionTranscript(svc).context()  # what the agent loop reads on the loop thread
    finally:
        type(first.file)._restore = restore  # type: ignore[method-assign]
    assert seen and loop_thread not in seen


async def test_concurrent_gets_of_a_released_session_rebuild_once(tmp_path: Path) -> None:
    manager, ids = _setup(tmp_path)
    for sid in ids:
        await manager.get(sid)
    svcs = await asyncio.gather(*(manager.get(ids[0]) for _ in range(5)))
    assert all(s is svcs[0] and s.file.loaded for s in svcs)
