"""The daemon's per-event fan-out path in one process, without sockets: µs per event.

    .venv/bin/python bench/fanout_path.py [--events 20000] [--repeats 25] [--json]

What bench/run_events.py measures end to end, taken apart so a shared 2-core machine's load
hardly moves it (the best of --repeats runs): the model stream (SSE split, chunk decode and
assembly of 20,000 one-character `content` deltas), then `Run.emit_delta` to 0, 1 and 11
WebSocket connections (the bench's driver plus 0 or 10 subscribers): numbering, encoding, the
ring, every connection's queue and limits, and the writer's join or framing every 27 events (what
one 2 ms write of a streaming connection carries; the writer's take also hands over the run's
held pass, so a pass here is 27 deltas, fewer than a burst's ~343 in the daemon). Sockets, the
agent loop and httpx are not in it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ggd.app.run import Run
from ggd.providers.assembly import SSEStream, StreamAssembler
from ggd.rpc.connection import Connection
from ggd.transport import websocket as ws

WRITE_EVERY = 27


def _sse(n: int) -> list[bytes]:
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake-model",
        "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}],
    }
    data = (b"data: " + json.dumps(chunk).encode() + b"\n\n") * n
    return [data[i : i + 65536] for i in range(0, len(data), 65536)]


def provider_us(n: int) -> float:
    """SSE bytes -> text deltas, per delta."""
    pieces = _sse(n)
    sse, asm = SSEStream(), StreamAssembler(provider="bench")
    feed_many = getattr(asm, "feed_many", None)  # what the provider calls (absent before it)
    t = time.perf_counter()
    for piece in pieces:
        if feed_many is not None:
            feed_many(sse.feed(piece))
        else:
            for data in sse.feed(piece):
                asm.feed_data(data)
    return (time.perf_counter() - t) / n * 1e6


def _ws_connection() -> Connection:
    conn = Connection(transport="ws")
    frame = getattr(ws, "_FRAME", None)  # the listener's shared framer (absent before it)
    if frame is not None:
        conn.wire = frame
    return conn


def _write(conn: Connection) -> bytes:
    frames = conn.take_frames()
    if getattr(conn, "wire", None) is not None:
        data = b"".join(frames)
    else:
        data = ws.text_frames(frames)
    conn.written(frames)
    return data


async def emit_us(n: int, connections: int) -> float:
    """Run.emit_delta to `connections` WebSocket queues plus their writes, per event."""
    run = Run(session_id="s_1", interactive=False, approval_mode="yolo", model="m")
    conns = [_ws_connection() for _ in range(connections)]
    run.subscribers.update(conns)
    t = time.perf_counter()
    for i in range(n):
        run.emit_delta("text_delta", "x")
        if i % WRITE_EVERY == 0:
            for c in conns:
                _write(c)
    return (time.perf_counter() - t) / n * 1e6


def main() -> int:
    """Measure and print (or --json)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=25)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    n, reps = max(100, args.events), max(1, args.repeats)
    out: dict[str, Any] = {"events": n, "repeats": reps}
    # Round-robin, best of each: a stretch of load on the shared machine hits every figure alike.
    best: dict[str, float] = {}
    for _ in range(reps):
        runs = {"provider_us_per_delta": provider_us(n)}
        for conns in (0, 1, 11):
            runs[f"emit_us_per_event_{conns}_connections"] = asyncio.run(emit_us(n, conns))
        best = {k: min(v, best.get(k, v)) for k, v in runs.items()}
    out.update(best)
    out["us_per_connection_per_event"] = (
        out["emit_us_per_event_11_connections"] - out["emit_us_per_event_0_connections"]
    ) / 11
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"fan-out path, best of {reps} runs of {n:,} events (µs per event)")
    for key, value in out.items():
        if key not in ("events", "repeats"):
            print(f"{key:<36}{value:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
