"""gg/session.open end to end: request -> last response byte over a real ggd's Unix socket.

Run: .venv/bin/python bench/session_open.py [--sizes 10000,100000] [--json]
A session of N linear entries is written into a fresh GG_HOME before ggd starts. `cold` is the
first open (the daemon reads the file in a worker thread, then builds the snapshot); `warm` is
the median of later opens (entries in memory: snapshot + encoding + the socket). The client
only reads the framed bytes; it never parses them, so its own JSON cost is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import bench_daemon, cpu_seconds, exit_on_signals
from session_store import _write_session

from ggd.app.workspaces import workspace_id
from ggd.session import SessionRepository

WARM_RUNS = 15


class _Raw:
    """A framed JSON-RPC client that returns response bodies as bytes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.ids = reader, writer, 0

    async def call(self, method: str, params: dict[str, Any]) -> bytes:
        self.ids += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        data = body.encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        await self.writer.drain()
        while True:  # skip notifications; the one response with our id ends the call
            length = 0
            while (line := await self.reader.readline()).strip():
                key, _, value = line.partition(b":")
                if key.lower() == b"content-length":
                    length = int(value)
            if not line:
                raise ConnectionError("ggd closed the connection")
            got = await self.reader.readexactly(length)
            if b'"id": %d' % self.ids in got[:40] or b'"id":%d' % self.ids in got[:40]:
                return got

    async def notify(self, method: str) -> None:
        data = json.dumps({"jsonrpc": "2.0", "method": method, "params": {}}).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        await self.writer.drain()


async def _measure(socket: str, ws: Path, sid: str, pid: int) -> dict[str, Any]:
    reader, writer = await asyncio.open_unix_connection(socket, limit=2**26)
    c = _Raw(reader, writer)
    try:
        init = {"processId": None, "capabilities": {}, "rootUri": ws.resolve().as_uri()}
        await c.call("initialize", init)
        await c.notify("initialized")
        t0 = time.perf_counter()
        body = await c.call("gg/session.open", {"sessionId": sid})
        cold = (time.perf_counter() - t0) * 1000
        if b'"error"' in body[:60]:
            raise RuntimeError(body[:300].decode(errors="replace"))
        warm: list[float] = []
        cpu0 = cpu_seconds(pid)
        for _ in range(WARM_RUNS):
            t0 = time.perf_counter()
            await c.call("gg/session.open", {"sessionId": sid})
            warm.append((time.perf_counter() - t0) * 1000)
        cpu = (cpu_seconds(pid) - cpu0) * 1000 / WARM_RUNS
        return {
            "cold_ms": cold,
            "warm_ms": statistics.median(warm),
            "warm_daemon_cpu_ms": cpu,
            "response_mb": len(body) / 1e6,
        }
    finally:
        writer.close()


def bench_session_open(entries: int) -> dict[str, Any]:
    """cold/warm ms of gg/session.open of an `entries`-entry linear session via a real ggd."""
    made: dict[str, str] = {}

    def setup(ws: Path) -> None:
        repo = SessionRepository(ws.parent / "home" / "sessions")
        made["sid"] = _write_session(repo, entries, False, workspace_id(ws))

    with bench_daemon([], setup=setup) as b:
        row = asyncio.run(_measure(b.daemon.socket, b.workspace, made["sid"], b.pid))
    return {"entries": entries, **row}


def main(argv: list[str] | None = None) -> int:
    """Print the figures (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    exit_on_signals()
    rows = [bench_session_open(int(n)) for n in args.sizes.split(",") if n]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        print(
            f"gg/session.open of {r['entries']} linear via ggd (request -> response bytes):"
            f" cold {r['cold_ms']:.0f} ms, warm {r['warm_ms']:.0f} ms (daemon CPU"
            f" {r['warm_daemon_cpu_ms']:.0f} ms),"
            f" response {r['response_mb']:.1f} MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
