"""A long session's gg/session.open answer, written in pieces, arrives whole on every transport."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from ggd.session import SessionRepository

from .daemon import TOKEN
from .rpc_client import RpcClient
from .runs_helpers import new_session

TURNS = 400  # ~2 MB of messages and tree rows: several write groups, several WebSocket fragments


async def _made(fake_daemon: Any) -> str:
    d, _ = fake_daemon([])
    c = await d.connect("unix")
    try:
        return await new_session(c)
    finally:
        await c.close()
        d.stop()


def _grow(gg_home: Path, sid: str) -> list[str]:
    sf = SessionRepository(gg_home / "sessions").open(sid)
    contents: list[str] = []
    for i in range(TURNS):
        role = "user" if i % 2 == 0 else "assistant"
        text = f"turn {i}: " + "naïve ünïcode and plain words " * 80
        sf.append("message", {"role": role, "content": text, "timestamp": 1_700_000_000 + i})
        contents.append(text)
    return contents


class _Frames(logging.Handler):
    """websockets' debug lines of received frames: a continuation frame shows as CONT."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


async def test_a_long_sessions_answer_is_whole_over_unix_ws_batched_ws_and_stdio(
    fake_daemon: Any, gg_home: Path
) -> None:
    sid = await _made(fake_daemon)
    contents = _grow(gg_home, sid)
    d, _ = fake_daemon([])
    unix = await d.connect("unix")
    frames = _Frames()
    log = logging.getLogger("tests.big_answer.ws")
    log.setLevel(logging.DEBUG)
    log.addHandler(frames)
    ws = await RpcClient.ws(d.ws_url, TOKEN, logger=log)
    batched = await RpcClient.ws(d.ws_url, TOKEN)
    try:
        await ws.initialize(d.workspace)
        await batched.initialize(d.workspace, options={"batchFrames": True})
        miss = await unix.request("gg/session.open", {"sessionId": sid})  # builds the file
        assert [m["content"] for m in miss["messages"]] == contents
        hit = await unix.request("gg/session.open", {"sessionId": sid})  # read from the file
        assert hit == miss

        # WebSocket: pings answered while the answer streams land between its fragments
        ask = asyncio.ensure_future(ws.request("gg/session.open", {"sessionId": sid}))
        assert ws.ws is not None
        pongs = [await ws.ws.ping() for _ in range(20)]
        assert await ask == miss
        await asyncio.wait_for(asyncio.gather(*pongs), 10)
        conts = [line for line in frames.lines if line.startswith("< CONT")]
        assert len(conts) >= 2  # it came as fragments (the answer is several groups long)

        # batched frames: the answer goes as itself between the arrays of other messages
        both = await asyncio.gather(
            batched.request("gg/session.open", {"sessionId": sid}),
            batched.request("gg/session.list", {}),
            batched.request("gg/session.get", {"sessionId": sid}),
        )
        assert both[0] == miss and both[2] == miss
        assert sid in [s["id"] for s in both[1]["sessions"]]
    finally:
        log.removeHandler(frames)
        for c in (unix, ws, batched):
            await c.close()
    stdio = await d.connect("stdio")
    try:
        assert await stdio.request("gg/session.open", {"sessionId": sid}) == miss
        assert await stdio.request("gg/system.info", {})  # the stream is still in step
    finally:
        await stdio.close()
