"""gg/run.event fan-out: throughput and latency to 1 and to 10 WebSocket subscribers.

    .venv/bin/python bench/run_events.py [--chars 20000] [--chunk 1] [--subscribers 1,10]
        [--modes frames,batched] [--paced-ms 0.1] [--json]

One run per scenario on a fresh ggd: the zero-latency fake model first asks for `bash sleep 1`
(yolo) so every subscriber is attached before the stream starts, then streams `--chars` characters
of text in `--chunk`-character deltas (one text_delta event each). The run is started by a
WebSocket "driver" client (which also receives every event); N extra WebSocket clients call
gg/run.subscribe {afterSequence: 0}. Every client is a process of its own, a raw-socket reader
(bench/_ws_reader.py) that only timestamps what it recv()s while the run streams and parses and
checks every sequence afterwards, so the figures are the daemon's, not a shared client's.
Latency is receive time minus the event's `timestamp` (daemon wall clock, whole ms, so figures
are biased up by ~0.5 ms); only live events count.
Mode "frames": one WebSocket frame per message (what every client gets by default); "batched":
the clients opt in with initializationOptions.batchFrames and get queued messages as JSON arrays.
The paced scenario (10 subscribers) has the fake send one delta every --paced-ms on a schedule.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import TOKEN, bench_daemon, cpu_seconds, exit_on_signals, peak_rss_kib, percentile

MAX_WAIT_S = 120.0
READER = Path(__file__).resolve().parent / "_ws_reader.py"
START_TIMEOUT_S = 30.0


class ReaderProc:
    """One bench/_ws_reader.py process: a WebSocket client of its own (see its docstring)."""

    def __init__(self, port: int, role: str, batch: bool, cpu_pid: int | None = None) -> None:
        cmd = [sys.executable, str(READER), "--port", str(port), "--token", TOKEN, "--role", role]
        if batch:
            cmd.append("--batch")
        if cpu_pid is not None:
            cmd += ["--cpu-pid", str(cpu_pid)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.strip())
        self._lines.put("")  # EOF

    def expect(self, word: str, timeout: float = START_TIMEOUT_S) -> str:
        """The next line, which must start with word (RuntimeError otherwise)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"a reader process said nothing within {timeout:.0f} s") from None
        if not line.startswith(word):
            raise RuntimeError(f"a reader process said {line[:200]!r}, expected {word!r}")
        return line

    def tell(self, line: str) -> None:
        """One line to the reader's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def result(self) -> dict[str, Any]:
        """Its closing JSON line."""
        return dict(json.loads(self.expect("{")))

    def stop(self) -> None:
        """Kill it if it is still running (a failed scenario)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(5)


def scenario(
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
        port = int(b.daemon.ws_url.rsplit(":", 1)[1].split("/")[0])
        driver = ReaderProc(port, "driver", batch, cpu_pid=b.pid)
        subs = [ReaderProc(port, "sub", batch) for _ in range(n_subs)]
        try:
            for c in [driver, *subs]:
                c.expect("ready")
            cpu0, own0 = cpu_seconds(b.pid), time.process_time()
            t0 = time.time()
            driver.tell("start")
            rid = driver.expect("run ").split()[1]
            for s in subs:
                s.tell(f"run {rid}")
            for s in subs:
                s.expect("subscribed")
            for c in [driver, *subs]:
                c.expect("streamed", MAX_WAIT_S + 30)
            cpu, own = cpu_seconds(b.pid) - cpu0, time.process_time() - own0
            rss = peak_rss_kib(b.pid)
            for c in [driver, *subs]:
                c.tell("finish")
            drv = driver.result()
            per = [s.result() for s in subs]
        finally:
            for c in [driver, *subs]:
                c.stop()
    if not drv["got_terminal"]:
        raise RuntimeError("the run did not end (the driver saw no terminal event)")
    final_seq = int(drv["final_sequence"])
    n_deltas = int(drv["text_deltas"])
    stream_start = float(drv["first_delta_timestamp"])
    emit_span_s = (float(drv["terminal_timestamp"]) - stream_start) / 1000
    ends = [r["terminal_at"] for r in [drv, *per] if r["terminal_at"] is not None]
    probes = drv["probes"]
    stream_cpu = probes["terminal"] - probes["first_delta"] if len(probes) == 2 else 0.0
    stream_wall = emit_span_s if emit_span_s > 0 else 0.0
    lat = [x for p in per for x in p["latency_ms"]]
    rates = [p["events_per_s"] for p in per]
    lost = [final_seq - p["final_sequence"] + p["lost"] for p in per]
    return {
        "clients": "one process each",
        "subscribers": n_subs,
        "batch_frames": batch,
        "paced_ms": pace_ms,
        "frames_per_subscriber": statistics.median([p["frames"] for p in per]) if per else 0,
        "run_status": drv["run_status"],
        "events_in_run": final_seq,
        "text_deltas": n_deltas,
        "daemon_emit_s": emit_span_s,
        "daemon_emit_events_per_s": n_deltas / emit_span_s if emit_span_s > 0 else None,
        "per_subscriber_events_per_s": {
            "min": min(rates, default=0.0),
            "median": statistics.median(rates) if rates else 0.0,
        },
        "aggregate_events_per_s": sum(rates),
        "latency_p50_ms": percentile(lat, 50),
        "latency_p99_ms": percentile(lat, 99),
        "latency_max_ms": max(lat, default=0.0),
        "worst_subscriber_p99_ms": max((percentile(p["latency_ms"], 99) for p in per), default=0),
        "lost_events": sum(lost),
        "subscribers_with_loss": sum(1 for n in lost if n),
        "subscribers_without_terminal": sum(1 for p in per if not p["got_terminal"]),
        "duplicates": sum(p["duplicates"] for p in per),
        "out_of_order": sum(p["out_of_order"] for p in per),
        "driver_received": drv["received"],
        "driver_lost": drv["lost"] + drv["duplicates"] + drv["out_of_order"],
        "wall_s": max(ends) - t0 if ends else 0.0,
        "daemon_cpu_s": cpu,
        "daemon_cpu_per_event_us": cpu * 1e6 / max(1, final_seq),
        "daemon_stream_cpu_s": stream_cpu,
        "daemon_stream_cpu_per_event_us": stream_cpu * 1e6 / max(1, n_deltas),
        # Cores the daemon used while it streamed (of the machine's os.cpu_count()).
        "daemon_stream_cores": stream_cpu / stream_wall if stream_wall > 0 else 0.0,
        "daemon_peak_rss_mib": rss / 1024,
        "reader_cpu_s": sum(r["own_cpu_s"] for r in [drv, *per]),
        "bench_cpu_s": own,
        "cpu_count": os.cpu_count(),
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
        ("daemon cores while streaming", lambda r: f"{r['daemon_stream_cores']:.2f}"),
        ("reader processes CPU (s)", lambda r: f"{r['reader_cpu_s']:.2f}"),
        ("bench + fake model CPU (s)", lambda r: f"{r['bench_cpu_s']:.2f}"),
        ("load average, 1 min", lambda r: f"{r['loadavg_1m']:.1f}"),
    ]
    for label, fmt in rows:
        print(f"{label:<30}" + "".join(f"{fmt(r):>14}" for r in results))
    print(f"every client is a process of its own (bench/_ws_reader.py); {os.cpu_count()} cores;")
    print("wall includes the scripted `sleep 1` bash step;")
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
        runs = [scenario(n, chars, chunk, batch=batch) for n in counts]
        paced = []
        if args.paced_ms > 0:
            paced = [scenario(10, min(chars, 10_000), chunk, args.paced_ms, batch)]
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
