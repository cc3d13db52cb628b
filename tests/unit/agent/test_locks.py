"""PathLocks serialize writers of one path, across loops, without deadlocks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ggd.agent import PathLocks
from ggd.tools.base import ToolResult

from .helpers import WAIT, RecTool, ScriptedProvider, call, calls, make_loop, reply


async def test_second_holder_waits_for_the_first(tmp_path: Path) -> None:
    locks = PathLocks()
    order: list[str] = []
    inside = asyncio.Event()
    release = asyncio.Event()

    async def first() -> None:
        async with locks.hold([tmp_path / "f"]):
            order.append("first in")
            inside.set()
            await asyncio.wait_for(release.wait(), WAIT)
            order.append("first out")

    async def second() -> None:
        async with locks.hold([tmp_path / "f"]):
            order.append("second in")

    t1 = asyncio.create_task(first())
    await asyncio.wait_for(inside.wait(), WAIT)
    t2 = asyncio.create_task(second())
    # Let the second holder reach the lock; it must still be waiting.
    for _ in range(5):
        await asyncio.sleep(0)
    assert order == ["first in"]
    release.set()
    await asyncio.wait_for(asyncio.gather(t1, t2), WAIT)
    assert order == ["first in", "first out", "second in"]
    assert len(locks) == 0


async def test_opposite_orders_do_not_deadlock(tmp_path: Path) -> None:
    locks = PathLocks()
    a, b = tmp_path / "a", tmp_path / "b"
    done: list[int] = []

    async def holder(paths: list[Path], n: int) -> None:
        for _ in range(20):
            async with locks.hold(paths):
                await asyncio.sleep(0)
        done.append(n)

    await asyncio.wait_for(asyncio.gather(holder([a, b], 1), holder([b, a], 2)), WAIT)
    assert sorted(done) == [1, 2]


async def test_two_loops_writing_one_file_are_serialized(tmp_path: Path) -> None:
    locks = PathLocks()
    log: list[tuple[str, ...]] = []
    first_in = asyncio.Event()
    release = asyncio.Event()

    async def slow_write(args: dict[str, Any]) -> ToolResult:
        if not first_in.is_set():
            first_in.set()
            await asyncio.wait_for(release.wait(), WAIT)
        return ToolResult("written")

    def loop_for(cid: str) -> Any:
        tool = RecTool("write", log, behaviour=slow_write, writes=True)
        provider = ScriptedProvider(calls(call(cid, "write", path="same.txt")), reply("ok"))
        return make_loop(provider, [tool], tmp_path, locks=locks)

    h1, h2 = loop_for("1"), loop_for("2")
    t1 = asyncio.create_task(h1.loop.run("write"))
    await asyncio.wait_for(first_in.wait(), WAIT)
    t2 = asyncio.create_task(h2.loop.run("write too"))
    await h2.sink.wait_for(lambda e: getattr(e, "tool_call_id", None) == "2")
    for _ in range(5):
        await asyncio.sleep(0)
    # The second writer announced its call but cannot enter run() while the first holds the lock.
    assert log == [("start", "write", "same.txt")], log
    release.set()
    await asyncio.wait_for(asyncio.gather(t1, t2), WAIT)
    assert log == [("start", "write", "same.txt"), ("end", "write", "same.txt")] * 2
