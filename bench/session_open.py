"""gg/session.open end to end: request -> last response byte over a real ggd's Unix socket.

Run: .venv/bin/python bench/session_open.py [--sizes 10000,100000] [--json]
A session of N linear entries is written into a fresh GG_HOME before ggd starts. `cold` is the
first open: with no snapshot file, the daemon decodes the entries, builds the answer and writes
the derived snapshot file (ggd.app.snapshot_file); `_with_file` figures come from a second
daemon started with that file beside the session (a restart), whose first open reads it without
decoding the entries. `warm` is the median of later opens (the file is current: read, checked,
spliced, sent). The ping figures are a second client's cheap request (gg/session.list) while
opens run: how long the daemon's event loop is held by an answer. That client runs in a process
of its own (`--probe`): in the opening client's process, its own reads of a 44 MB answer would
hold up the pings too. The client only reads the framed bytes; it never parses them, so its own
JSON cost is not counted.
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


async def _connect(socket: str, ws: Path) -> _Raw:
    reader, writer = await asyncio.open_unix_connection(socket, limit=2**26)
    c = _Raw(reader, writer)
    init = {"processId": None, "capabilities": {}, "rootUri": ws.resolve().as_uri()}
    await c.call("initialize", init)
    await c.notify("initialized")
    return c


PROBE_MAX_S = 300  # a probe whose parent died stops by itself


async def _probe(socket: str, ws: Path) -> None:
    """The --probe process: pings until stdin closes, then prints the round trips (JSON)."""
    c = await _connect(socket, ws)
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    done = asyncio.ensure_future(stdin.read())
    print("ready", flush=True)
    out: list[float] = []
    deadline = time.monotonic() + PROBE_MAX_S
    while not done.done() and time.monotonic() < deadline:
        t0 = time.perf_counter()
        await c.call("gg/session.list", {})
        out.append((time.perf_counter() - t0) * 1000)
    print(json.dumps(out), flush=True)


async def _pings_during(socket: str, ws: Path, c: _Raw, sid: str, opens: int) -> list[float]:
    """A probe process's ping round trips while `c` opens the session `opens` times."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--probe",
        socket,
        str(ws),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        if (await asyncio.wait_for(proc.stdout.readline(), 30)).strip() != b"ready":
            raise RuntimeError("the ping probe did not start")
        for _ in range(opens):
            await c.call("gg/session.open", {"sessionId": sid})
        proc.stdin.close()
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        return [float(x) for x in json.loads(line)]
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


async def _measure(socket: str, ws: Path, sid: str, pid: int) -> dict[str, Any]:
    c = await _connect(socket, ws)
    probe = await _connect(socket, ws)
    try:
        t0 = time.perf_counter()
        body = await c.call("gg/session.open", {"sessionId": sid})
        cold = (time.perf_counter() - t0) * 1000
        if b'"error"' in body[:60]:
            raise RuntimeError(body[:300].decode(errors="replace"))
        idle: list[float] = []
        for _ in range(20):
            t0 = time.perf_counter()
            await probe.call("gg/session.list", {})
            idle.append((time.perf_counter() - t0) * 1000)
        warm: list[float] = []
        cpu0 = cpu_seconds(pid)
        for _ in range(WARM_RUNS):
            t0 = time.perf_counter()
            await c.call("gg/session.open", {"sessionId": sid})
            warm.append((time.perf_counter() - t0) * 1000)
        cpu = (cpu_seconds(pid) - cpu0) * 1000 / WARM_RUNS
        # The loop block: a second client's cheap request waits behind whatever the daemon's
        # event loop does for an open (encoding, copying, writing the answer).
        during = await _pings_during(socket, ws, c, sid, 5)
        return {
            "cold_ms": cold,
            "warm_ms": statistics.median(warm),
            "warm_daemon_cpu_ms": cpu,
            "response_mb": len(body) / 1e6,
            "ping_idle_median_ms": statistics.median(idle),
            "ping_during_opens_max_ms": max(during),
        }
    finally:
        c.writer.close()
        probe.writer.close()


def bench_session_open(entries: int) -> dict[str, Any]:
    """gg/session.open of an `entries`-entry linear session via a real ggd, in two daemons.

    First with no snapshot file (cold = decode + build + write the file), then in a daemon
    started with the file beside the session (a restart, or a session the daemon ran last):
    cold = the deferred open + the file. warm = later opens of each (the file is current).
    """
    row: dict[str, Any] = {"entries": entries}
    made: dict[str, str] = {}
    for prebuilt in (False, True):
        made.clear()

        def setup(ws: Path, prebuilt: bool = prebuilt) -> None:
            repo = SessionRepository(ws.parent / "home" / "sessions")
            made["sid"] = sid = _write_session(repo, entries, False, workspace_id(ws))
            if prebuilt:
                from ggd.app.snapshot_file import SNAPSHOT, payload

                repo.open(sid).derived(SNAPSHOT, payload)

        with bench_daemon([], setup=setup) as b:
            got = asyncio.run(_measure(b.daemon.socket, b.workspace, made["sid"], b.pid))
        if not prebuilt:
            row.update(got)
        else:
            row.update({f"{k}_with_file": v for k, v in got.items() if k != "response_mb"})
    return row


def describe_open(r: dict[str, Any]) -> str:
    """One line of figures of bench_session_open."""
    return (
        f"gg/session.open of {r['entries']} linear via ggd (request -> response bytes):"
        f" cold {r['cold_ms']:.0f} ms (no snapshot file), {r['cold_ms_with_file']:.0f} ms"
        f" (file present); warm {r['warm_ms']:.0f} / {r['warm_ms_with_file']:.0f} ms (daemon"
        f" CPU {r['warm_daemon_cpu_ms']:.0f} ms); a second client's ping: idle"
        f" {r['ping_idle_median_ms']:.1f} ms, max during opens {r['ping_during_opens_max_ms']:.0f}"
        f" ms; response {r['response_mb']:.1f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the figures (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--probe", nargs=2, metavar=("SOCKET", "WORKSPACE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.probe:
        asyncio.run(_probe(args.probe[0], Path(args.probe[1])))
        return 0
    exit_on_signals()
    rows = [bench_session_open(int(n)) for n in args.sizes.split(",") if n]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        print(describe_open(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
