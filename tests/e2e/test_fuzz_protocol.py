"""10,000 seeded hostile messages per transport; every answer is the contract's, nobody stalls.

The hostile client pipelines batches of messages (see tests/e2e/hostile.py for the classes) and
reads the replies with a strict JSON parser. After each batch a second client (for stdio, whose
daemon has one client only, the same pipe) must answer gg/system.info. Unrecoverable stream
framings run last, each on a fresh connection that must get a parse error and be closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from .daemon import GGD, TOKEN, Daemon
from .hostile import FATAL_HEADERS, SYMBOL, Case, Hostile

TOTAL = 10_000
BATCH = 500
pytestmark = pytest.mark.slow


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} in a reply")


def strict_json(body: bytes) -> Any:
    """Parse a reply as the JSON standard says: UTF-8, no NaN/Infinity."""
    return json.loads(body.decode("utf-8"), parse_constant=_no_constant)


class RawClient:
    """A JSON-RPC connection that sends raw bytes and records raw replies."""

    def __init__(self) -> None:
        self.replies: list[tuple[bytes, Any]] = []
        self.arrived = asyncio.Event()
        self.closed = asyncio.Event()
        self._send: Any = None
        self._close: Any = None
        self._task: asyncio.Task[None] | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self.framed = True

    @classmethod
    async def open(cls, kind: str, d: Daemon) -> RawClient:
        """Connect over `kind`; the connection is not initialized."""
        self = cls()
        if kind == "ws":
            ws = await connect(
                d.ws_url, additional_headers={"Authorization": f"Bearer {TOKEN}"}, max_size=2**25
            )
            self.framed = False

            async def send_ws(chunks: list[bytes]) -> None:
                for c in chunks:
                    try:
                        await ws.send(c.decode("utf-8"))
                    except UnicodeDecodeError:
                        await ws.send(c)  # not text: a binary frame

            self._send, self._close = send_ws, ws.close
            self._task = asyncio.create_task(self._read_ws(ws))
            return self
        if kind == "unix":
            reader, writer = await asyncio.open_unix_connection(d.socket, limit=2**24)
        else:
            self.proc = await asyncio.create_subprocess_exec(
                *GGD, "--stdio", "--workspace", str(d.workspace), env=d.env,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, limit=2**24,
            )  # fmt: skip
            assert self.proc.stdout is not None and self.proc.stdin is not None
            reader, writer = self.proc.stdout, self.proc.stdin

        async def send_stream(chunks: list[bytes]) -> None:
            writer.write(b"".join(chunks))
            await writer.drain()

        async def close_stream() -> None:
            with contextlib.suppress(Exception):
                writer.close()
            if self.proc is not None:
                try:
                    await asyncio.wait_for(self.proc.wait(), 10)
                except TimeoutError:
                    self.proc.kill()
                    await self.proc.wait()

        self._send, self._close = send_stream, close_stream
        self._task = asyncio.create_task(self._read_stream(reader))
        return self

    def _got(self, body: bytes) -> None:
        self.replies.append((body, strict_json(body)))
        self.arrived.set()

    async def _read_stream(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                header = await reader.readuntil(b"\r\n\r\n")
                lengths = [
                    int(line.split(b":", 1)[1])
                    for line in header.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ]
                assert len(lengths) == 1, header
                self._got(await reader.readexactly(lengths[0]))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed.set()
            self.arrived.set()

    async def _read_ws(self, ws: ClientConnection) -> None:
        try:
            async for msg in ws:
                assert isinstance(msg, str), "replies are text frames"
                self._got(msg.encode())
        except Exception:
            pass
        finally:
            self.closed.set()
            self.arrived.set()

    def frame(self, case: Case) -> bytes:
        """The bytes of one case on this transport."""
        if not self.framed:
            return case.body
        header = case.header or b"Content-Length: %d\r\n\r\n" % len(case.body)
        return header + case.body

    async def send(self, chunks: list[bytes]) -> None:
        """Send raw chunks (stream bytes, or one WebSocket frame each)."""
        await self._send(chunks)

    async def wait_replies(self, n: int, timeout: float = 30) -> None:
        """Until at least n replies have arrived (or the connection closed)."""
        async with asyncio.timeout(timeout):
            while len(self.replies) < n and not self.closed.is_set():
                self.arrived.clear()
                await self.arrived.wait()

    async def close(self) -> None:
        """Close the connection (and the sidecar)."""
        if self._close is not None:
            with contextlib.suppress(Exception):
                await self._close()
        if self._task is not None:
            self._task.cancel()


def _init(mid: str, root: Path) -> bytes:
    params = {"processId": None, "capabilities": {}, "rootUri": root.resolve().as_uri()}
    return json.dumps(
        {"jsonrpc": "2.0", "id": mid, "method": "initialize", "params": params}
    ).encode()


def _info(mid: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": mid, "method": "gg/system.info"}).encode()


def _framed(c: RawClient, body: bytes) -> bytes:
    return c.frame(Case("plain", body, None))


def check_reply(msg: Any, raw: bytes, forbidden: list[str]) -> None:
    """Every reply is a JSON-RPC 2.0 response; an error has a data.code and leaks nothing."""
    assert isinstance(msg, dict) and msg.get("jsonrpc") == "2.0", raw[:200]
    assert "id" in msg and (isinstance(msg["id"], str | int) or msg["id"] is None), raw[:200]
    assert ("result" in msg) != ("error" in msg), raw[:200]
    if "error" in msg:
        assert set(msg) == {"jsonrpc", "id", "error"}, raw[:200]
        err = msg["error"]
        assert isinstance(err["code"], int) and isinstance(err["message"], str), raw[:200]
        assert isinstance(err["data"]["code"], str), raw[:200]
        text = raw.decode()
        leaks = [f for f in forbidden if f in text]
        assert not leaks, (leaks, raw[:300])


@pytest.mark.parametrize("kind", ["stdio", "unix", "ws"])
async def test_hostile_messages_get_contract_answers_and_nobody_stalls(
    daemon: Daemon, kind: str
) -> None:
    forbidden = ["/" + "site-packages", "Traceback", str(Path.home()), str(daemon.home)]
    forbidden += [str(Path(__file__).resolve().parents[2])]  # the source tree
    gen = Hostile(1234 + ["stdio", "unix", "ws"].index(kind), framed=kind != "ws")
    hostile = await RawClient.open(kind, daemon)
    other = None if kind == "stdio" else await daemon.connect(kind)
    kinds: Counter[str] = Counter()
    try:
        await hostile.send([_framed(hostile, _init("init", daemon.workspace))])
        await hostile.wait_replies(1)
        assert "result" in hostile.replies[0][1], hostile.replies[0][0][:300]
        expected: dict[Any, tuple[int, str]] = {}
        expected_null: list[tuple[int, str]] = []
        sent = 0
        batch_no = 0
        while sent < TOTAL:
            batch_no += 1
            cases = [gen.case() for _ in range(min(BATCH, TOTAL - sent))]
            if batch_no <= 2:  # a few oversized ones, early, between the others
                cases[len(cases) // 2] = gen.oversized()
            sent += len(cases)
            chunks = [hostile.frame(c) for c in cases]
            sentinel = f"sentinel-{batch_no}"
            chunks.append(_framed(hostile, _info(sentinel)))
            for c in cases:
                kinds[c.kind] += 1
                if c.expect is None:
                    continue
                mid, code, symbol = c.expect
                if mid is None:
                    expected_null.append((code, symbol))
                else:
                    assert mid not in expected
                    expected[mid] = (code, symbol)
            expected[sentinel] = (0, "")
            await hostile.send(chunks)
            await hostile.wait_replies(len(expected) + len(expected_null) + 1)
            assert not hostile.closed.is_set(), "the daemon dropped the hostile connection"
            # the other client is answered between batches
            if other is not None:
                info = await asyncio.wait_for(other.request("gg/system.info"), 10)
            else:
                await hostile.send([_framed(hostile, _info(f"probe-{batch_no}"))])
                expected[f"probe-{batch_no}"] = (0, "")
                await hostile.wait_replies(len(expected) + len(expected_null) + 1)
                info = next(
                    m["result"] for _, m in hostile.replies if m.get("id") == f"probe-{batch_no}"
                )
            assert info["protocolVersion"] == "1.0"
        # every reply: well-formed, expected, exactly once
        got_null: list[tuple[int, str]] = []
        seen: set[Any] = set()
        for raw, msg in hostile.replies[1:]:
            check_reply(msg, raw, forbidden)
            mid = msg["id"]
            if mid is None:
                got_null.append((msg["error"]["code"], msg["error"]["data"]["code"]))
                continue
            assert mid in expected and mid not in seen, ("unexpected or repeated reply", raw[:300])
            seen.add(mid)
            code, symbol = expected[mid]
            if code == 0:
                assert "result" in msg, raw[:300]
            else:
                assert (msg["error"]["code"], msg["error"]["data"]["code"]) == (code, symbol), raw[
                    :300
                ]
        assert seen == set(expected), f"no reply to {sorted(set(expected) - seen)[:10]}"
        assert got_null == expected_null
        assert sum(kinds.values()) == TOTAL and len(kinds) >= 14, kinds
    finally:
        await hostile.close()
        if other is not None:
            await other.close()
    if hostile.proc is not None:  # the sidecar ends cleanly when its stdin closes
        assert hostile.proc.returncode == 0
    if kind != "ws":
        await _fatal_framings(daemon, kind, forbidden)
    bad = [
        line
        for line in daemon.logs().splitlines()
        if "failed to dispatch" in line or "Traceback" in line
    ]
    assert bad == [], bad[:3]


async def _fatal_framings(daemon: Daemon, kind: str, forbidden: list[str]) -> None:
    """Headers that cannot be resynchronised: a -32700 reply, then the daemon closes the stream."""
    headers = FATAL_HEADERS[:3] if kind == "stdio" else FATAL_HEADERS  # a process each on stdio
    for raw in headers:
        c = await RawClient.open(kind, daemon)
        try:
            await c.send([raw])
            await c.wait_replies(1)
            await asyncio.wait_for(c.closed.wait(), 10)
            assert len(c.replies) == 1, raw
            body, msg = c.replies[0]
            check_reply(msg, body, forbidden)
            assert msg["id"] is None and msg["error"]["code"] == -32700
        finally:
            await c.close()
    # a frame cut short by the end of the stream: no reply, no crash
    c = await RawClient.open(kind, daemon)
    await c.send([b'Content-Length: 100\r\n\r\n{"jsonrpc"'])
    await c.close()
    if c.proc is not None:
        assert c.proc.returncode == 0
    probe = await daemon.connect("unix")
    assert (await probe.request("gg/system.info"))["protocolVersion"] == "1.0"
    await probe.close()
    assert SYMBOL  # the symbol table the generator used is the daemon's
    assert os.path.exists(daemon.socket)
