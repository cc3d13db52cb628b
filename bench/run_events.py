"""gg/run.event fan-out: throughput and latency to 1 and to 10 WebSocket subscribers.

    .venv/bin/python bench/run_events.py [--chars 20000] [--chunk 1] [--subscribers 1,10]
        [--modes frames,batched] [--paced-ms 0.1] [--json]

One run per scenario on a fresh ggd: the zero-latency fake model first asks for `bash sleep 1`
(yolo) so every subscriber is attached before the stream starts, then streams `--chars` characters
of text in `--chunk`-character deltas (one text_delta event each). The run is started by a
WebSocket "driver" client (which also receives every event); N extra WebSocket clients call
gg/run.subscribe {afterSequence: 0}. Latency is receive time minus the event's `timestamp`
(daemon wall clock, whole ms, so figures are biased up by ~0.5 ms); only live events count.
Mode "frames": one WebSocket frame per message (what every client gets by default); "batched":
the clients opt in with initializationOptions.batchFrames and get queued messages as JSON arrays.
The paced scenario (10 subscribers) has the fake send one delta every --paced-ms on a schedule.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import TOKEN, bench_daemon, cpu_seconds, exit_on_signals, peak_rss_kib, percentile
from websockets.asyncio.client import ClientConnection, connect

TERMINAL_TYPES = ("run_completed", "run_failed", "run_canceled")
TERMINAL_MARKERS = ('"type":"run_completed"', '"type":"run_failed"', '"type":"run_canceled"')
# A subscriber that got nothing for this long after the run ended lost the tail.
IDLE_GIVE_UP_S = 3.0
MAX_WAIT_S = 120.0


class LeanClient:
    """A lean WebSocket client: records (receive time, raw frame) and parses after the run.

    (tests/e2e/rpc_client.py rescans every buffered notification per wait, which would make the
    benchmark's own client the bottleneck at tens of thousands of events.)
    """

    def __init__(self, batch: bool = False, cpu_probe: Callable[[], float] | None = None) -> None:
        self.batch = batch
        # The driver reads the daemon's CPU at its first text_delta frame and at the terminal
        # one: the streaming part of the run, without its start, the bash step and the end.
        self.cpu_probe = cpu_probe
        self.cpu_at_first_delta: float | None = None
        self.cpu_at_terminal: float | None = None
        self.frames: list[tuple[float, str]] = []
        self.done = asyncio.Event()
        self.subscribed_ms = 0.0
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._acks: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    async def open(self, url: str) -> None:
        """Connect, initialize and start reading."""
        self._ws = await connect(
            url, additional_headers={"Authorization": f"Bearer {TOKEN}"}, max_size=2**25
        )
        self._reader = asyncio.create_task(self._read())
        params: dict[str, Any] = {"processId": None, "capabilities": {}}
        if self.batch:
            params["initializationOptions"] = {"batchFrames": True}
        result = await self.call("initialize", params)
        if self.batch and not result["capabilities"]["experimental"]["gg"].get("batchFrames"):
            raise RuntimeError("the daemon did not grant batchFrames")
        await self._ws.send(json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    async def subscribe(self, run_id: str) -> None:
        """gg/run.subscribe from the start of the run."""
        self.subscribed_ms = time.time() * 1000
        await self.call("gg/run.subscribe", {"runId": run_id, "afterSequence": 0})

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request and return its result (RuntimeError on an error answer)."""
        assert self._ws is not None
        mid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._acks[mid] = fut
        await self._ws.send(
            json.dumps({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
        )
        resp = await asyncio.wait_for(fut, 15)
        if "error" in resp:
            raise RuntimeError(f"{method} failed: {resp['error']}")
        return resp.get("result")

    async def _read(self) -> None:
        assert self._ws is not None
        with contextlib.suppress(Exception):
            async for msg in self._ws:
                text = msg if isinstance(msg, str) else msg.decode()
                self.frames.append((time.time(), text))
                if self.cpu_probe is not None:
                    self._probe(text)
                # Cheap checks on the hot path; full parsing waits until the run is over.
                if text[:1] == "[":  # a batch: responses may be inside
                    if '"id":' in text:
                        for resp in json.loads(text):
                            self._ack(resp)
                    if any(m in text for m in TERMINAL_MARKERS):
                        self.done.set()
                elif "gg/run.event" not in text[:80]:
                    self._ack(json.loads(text))
                elif any(m in text for m in TERMINAL_MARKERS):
                    self.done.set()

    def _probe(self, text: str) -> None:
        assert self.cpu_probe is not None
        if self.cpu_at_first_delta is None and '"type":"text_delta"' in text:
            self.cpu_at_first_delta = self.cpu_probe()
        elif any(m in text for m in TERMINAL_MARKERS):
            self.cpu_at_terminal = self.cpu_probe()

    def _ack(self, resp: dict[str, Any]) -> None:
        fut = self._acks.pop(resp.get("id"), None)
        if fut is not None and not fut.done():
            fut.set_result(resp)

    async def wait_done(self) -> bool:
        """Wait for the terminal event; False if the stream went idle without it."""
        deadline = time.monotonic() + MAX_WAIT_S
        seen = -1
        while time.monotonic() < deadline:
            try:
                await asyncio.wait_for(self.done.wait(), IDLE_GIVE_UP_S)
                return True
            except TimeoutError:
                if len(self.frames) == seen:
                    return False
                seen = len(self.frames)
        return False

    async def close(self) -> None:
        """Close the socket and stop reading."""
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()

    def events(self) -> list[tuple[float, dict[str, Any]]]:
        """(receive time in ms, event params) of every gg/run.event received."""
        out = []
        for t, text in self.frames:
            if text[:1] == "[":
                for msg in json.loads(text):
                    if msg.get("method") == "gg/run.event":
                        out.append((t * 1000, msg["params"]))
            elif "gg/run.event" in text[:80]:
                out.append((t * 1000, json.loads(text)["params"]))
        return out


def analyse(sub: LeanClient, final_seq: int, stream_start_ms: float) -> dict[str, Any]:
    """Per-subscriber figures: events, loss, live rate and latencies."""
    evs = sub.events()
    seqs = [e["sequence"] for _, e in evs]
    unique = set(seqs)
    live = [(t, e) for t, e in evs if e["timestamp"] >= sub.subscribed_ms]
    lat = [t - e["timestamp"] for t, e in live]
    streamed = [t for t, e in evs if e["timestamp"] >= stream_start_ms]
    span_s = (max(streamed) - stream_start_ms) / 1000 if streamed else 0.0
    return {
        "received": len(evs),
        "lost": final_seq - len(unique & set(range(1, final_seq + 1))),
        "duplicates": len(seqs) - len(unique),
        "out_of_order": sum(1 for a, b in itertools.pairwise(seqs) if b <= a),
        "got_terminal": sub.done.is_set(),
        "events_per_s": len(streamed) / span_s if span_s > 0 else 0.0,
        "latency_ms": lat,
    }


async def scenario(
    n_subs: int, chars: int, chunk: int, pace_ms: float = 0.0, batch: bool = False
) -> dict[str, Any]:
    """One run streamed to n_subs extra WebSocket subscribers on a fresh daemon.

    pace_ms > 0: the fake sends one delta every pace_ms on a schedule (a paced stream, for
    latency at a set rate). batch: every client opts in to batched frames.
    """
    text = ("lorem ipsum dolor sit amet " * (chars // 27 + 1))[:chars]
    stream: dict[str, Any] = {"text": text, "chunkSize": chunk}
    if pace_ms > 0:
        stream["delayMs"] = pace_ms
        stream["paced"] = True
    script = [
        {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 1"}}]},
        stream,
    ]
    with bench_daemon(script, zero_latency=pace_ms <= 0) as b:
        driver = LeanClient(batch, cpu_probe=lambda: cpu_seconds(b.pid))
        subs = [LeanClient(batch) for _ in range(n_subs)]
        try:
            await asyncio.gather(*(c.open(b.daemon.ws_url) for c in [driver, *subs]))
            sid = (await driver.call("gg/session.create", {}))["sessionId"]
            cpu0, own0 = cpu_seconds(b.pid), time.process_time()
            t0 = time.perf_counter()
            # The starting connection is subscribed to the run by gg/run.start itself.
            params = {"sessionId": sid, "prompt": "stream a long answer", "approvalMode": "yolo"}
            driver.subscribed_ms = time.time() * 1000
            rid = (await driver.call("gg/run.start", params))["runId"]
            await asyncio.gather(*(s.subscribe(rid) for s in subs))
            if not await driver.wait_done():
                raise RuntimeError("the run did not end (the driver saw no terminal event)")
            finished = await asyncio.gather(*(s.wait_done() for s in subs))
            wall = time.perf_counter() - t0
            cpu, own = cpu_seconds(b.pid) - cpu0, time.process_time() - own0
            rss = peak_rss_kib(b.pid)
            status = await driver.call("gg/run.get", {"runId": rid})
        finally:
            await asyncio.gather(*(c.close() for c in [driver, *subs]), return_exceptions=True)
    drv = [e for _, e in driver.events()]
    done = next(e for e in reversed(drv) if e["type"] in TERMINAL_TYPES)
    final_seq = int(done["sequence"])
    deltas = [e for e in drv if e["type"] == "text_delta"]
    stream_start = float(deltas[0]["timestamp"]) if deltas else float(done["timestamp"])
    emit_span_s = (float(done["timestamp"]) - stream_start) / 1000
    per = [analyse(s, final_seq, stream_start) for s in subs]
    first, last = driver.cpu_at_first_delta, driver.cpu_at_terminal
    stream_cpu = last - first if first is not None and last is not None else 0.0
    lat = [x for p in per for x in p["latency_ms"]]
    rates = [p["events_per_s"] for p in per]
    return {
        "subscribers": n_subs,
        "batch_frames": batch,
        "paced_ms": pace_ms,
        "frames_per_subscriber": statistics.median([len(s.frames) for s in subs]) if subs else 0,
        "run_status": status["status"],
        "events_in_run": final_seq,
        "text_deltas": len(deltas),
        "daemon_emit_s": emit_span_s,
        "daemon_emit_events_per_s": len(deltas) / emit_span_s if emit_span_s > 0 else None,
        "per_subscriber_events_per_s": {
            "min": min(rates, default=0.0),
            "median": statistics.median(rates) if rates else 0.0,
        },
        "aggregate_events_per_s": sum(rates),
        "latency_p50_ms": percentile(lat, 50),
        "latency_p99_ms": percentile(lat, 99),
        "latency_max_ms": max(lat, default=0.0),
        "worst_subscriber_p99_ms": max((percentile(p["latency_ms"], 99) for p in per), default=0),
        "lost_events": sum(p["lost"] for p in per),
        "subscribers_with_loss": sum(1 for p in per if p["lost"]),
        "subscribers_without_terminal": sum(1 for ok in finished if not ok),
        "duplicates": sum(p["duplicates"] for p in per),
        "out_of_order": sum(p["out_of_order"] for p in per),
        "driver_received": len(drv),
        "driver_lost": final_seq - len({e["sequence"] for e in drv}),
        "wall_s": wall,
        "daemon_cpu_s": cpu,
        "daemon_cpu_per_event_us": cpu * 1e6 / max(1, final_seq),
        "daemon_stream_cpu_s": stream_cpu,
        "daemon_stream_cpu_per_event_us": stream_cpu * 1e6 / max(1, len(deltas)),
        "daemon_peak_rss_mib": rss / 1024,
        "client_cpu_s": own,
        "loadavg_1m": os.getloadavg()[0],
    }


def print_table(results: list[dict[str, Any]], chars: int, chunk: int) -> None:
    """A readable table, one column per scenario."""
    print(f"run_events: {chars} chars in {chunk}-char deltas, zero-latency fake, WebSocket")
    rows: list[tuple[str, Any]] = [
        ("frames", lambda r: "batched" if r["batch_frames"] else "one/message"),
        ("stream", lambda r: "paced" if r["paced_ms"] else "burst"),
        ("extra subscribers", lambda r: f"{r['subscribers']}"),
        ("frames per subscriber", lambda r: f"{r['frames_per_subscriber']:,.0f}"),
        ("events in run", lambda r: f"{r['events_in_run']}"),
        ("daemon emit rate (ev/s)", lambda r: f"{r['daemon_emit_events_per_s'] or 0:,.0f}"),
        (
            "per-sub rate, median (ev/s)",
            lambda r: f"{r['per_subscriber_events_per_s']['median']:,.0f}",
        ),
        ("per-sub rate, min (ev/s)", lambda r: f"{r['per_subscriber_events_per_s']['min']:,.0f}"),
        ("aggregate delivered (ev/s)", lambda r: f"{r['aggregate_events_per_s']:,.0f}"),
        ("latency p50 (ms)", lambda r: f"{r['latency_p50_ms']:.1f}"),
        ("latency p99 (ms)", lambda r: f"{r['latency_p99_ms']:.1f}"),
        ("latency max (ms)", lambda r: f"{r['latency_max_ms']:.1f}"),
        ("lost events (all subs)", lambda r: f"{r['lost_events']}"),
        (
            "subs with loss / no end",
            lambda r: f"{r['subscribers_with_loss']} / {r['subscribers_without_terminal']}",
        ),
        ("driver lost events", lambda r: f"{r['driver_lost']}"),
        ("wall: start to last end (s)", lambda r: f"{r['wall_s']:.2f}"),
        ("daemon CPU user+sys (s)", lambda r: f"{r['daemon_cpu_s']:.2f}"),
        ("daemon CPU / event (us)", lambda r: f"{r['daemon_cpu_per_event_us']:.0f}"),
        ("streaming CPU / delta (us)", lambda r: f"{r['daemon_stream_cpu_per_event_us']:.1f}"),
        ("daemon peak RSS (MiB)", lambda r: f"{r['daemon_peak_rss_mib']:.1f}"),
        ("bench client CPU (s)", lambda r: f"{r['client_cpu_s']:.2f}"),
        ("load average, 1 min", lambda r: f"{r['loadavg_1m']:.1f}"),
    ]
    for label, fmt in rows:
        print(f"{label:<30}" + "".join(f"{fmt(r):>14}" for r in results))
    print("wall includes the scripted `sleep 1` bash step; all clients share one Python process;")
    print("paced: the fake sends a delta every --paced-ms (10,000 of them); burst: all at once")


def main() -> int:
    """Run the scenarios and print a table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=20_000, help="characters of streamed text")
    ap.add_argument("--chunk", type=int, default=1, help="characters per text delta (1..4)")
    ap.add_argument("--subscribers", default="1,10", help="comma-separated subscriber counts")
    ap.add_argument(
        "--modes", default="frames,batched", help="frames (one per message), batched, or both"
    )
    ap.add_argument(
        "--paced-ms",
        type=float,
        default=0.1,
        help="schedule of the paced latency scenario (10 subscribers; 0.1 = 10k/s); 0 skips it",
    )
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    exit_on_signals()
    counts = [max(1, min(50, int(x))) for x in args.subscribers.split(",") if x.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip() in ("frames", "batched")]
    chars = max(1, min(200_000, args.chars))
    chunk = max(1, args.chunk)
    out: dict[str, Any] = {"chars": chars, "chunk": chunk}
    # "scenarios"/"paced" keep one frame per message (every client); "batched*" opt in.
    for mode, key in (("frames", "scenarios"), ("batched", "batched")):
        batch = mode == "batched"
        if mode not in modes:
            out[key], out["paced" if key == "scenarios" else "paced_batched"] = [], []
            continue
        runs = [asyncio.run(scenario(n, chars, chunk, batch=batch)) for n in counts]
        paced = []
        if args.paced_ms > 0:
            paced = [asyncio.run(scenario(10, min(chars, 10_000), chunk, args.paced_ms, batch))]
        out[key] = runs
        out["paced" if key == "scenarios" else "paced_batched"] = paced
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    table = [*out["scenarios"], *out["batched"], *out["paced"], *out["paced_batched"]]
    print_table(table, chars, chunk)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
