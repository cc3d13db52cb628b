"""Every benchmark in one run: one table of each figure, its aim and met / not met (or --json).

    .venv/bin/python bench/report.py [--only cli,run_events] [--json] [--quick]

Each bench still runs alone (`python bench/<name>.py --json`); this runs them one after the
other as subprocesses, flattens every number of each JSON answer into a figure named
`bench: path`, and looks the figure up in AIMS (issue 19 and the earlier benches' own aims).
A figure with no aim is still listed ("-"), so nothing a bench measures is hidden. A bench that
fails is a row of its own (status "failed") and the others still run. The machine is shared:
each figure is what one run measured (the benches report medians over their own repeats).
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:  # loaded as a module by the tests, not run as a script
    sys.path.insert(0, str(BENCH))

from _common import percentile  # noqa: E402

# name -> (arguments after --json, seconds allowed). Arguments keep `make bench` to minutes.
BENCHES: dict[str, tuple[list[str], float]] = {
    # Ten cold samples: the --no-daemon row's median moves with the host's speed spells, and
    # five of them let one spell decide it (~8 s more than five).
    "cli": (["--runs", "10", "--cold-runs", "10"], 600),
    "run_events": ([], 600),
    "fanout_path": ([], 300),
    "scale": ([], 900),
    "session_store": ([], 600),
    "harness": (["--steps", "10,100"], 900),
    "artifacts": ([], 300),
    "personal": ([], 300),
    "mcp": ([], 600),
    "kb": ([], 900),
    "context": ([], 300),
    "acp_adapter": ([], 300),
    "provider_prefix": ([], 600),
}
QUICK: dict[str, list[str]] = {
    "cli": ["--runs", "5", "--cold-runs", "3"],
    "run_events": ["--chars", "10000"],
    "fanout_path": ["--repeats", "5"],
    "scale": ["--sessions", "50", "--runs", "4", "--clients", "5", "--idle", "300"],
    "harness": ["--steps", "10", "--no-cli"],
    "kb": ["--files", "200", "--queries", "50", "--no-model"],
    "session_store": ["--sizes", "1000,10000"],
}


@dataclass(frozen=True)
class Aim:
    """A target for one figure: `value op target` is met."""

    op: str  # "<=", ">=" or "=="
    target: float
    unit: str = ""
    note: str = ""

    def met(self, value: float) -> bool:
        """Whether value reaches the aim."""
        ops: dict[str, Callable[[float, float], bool]] = {
            "<=": operator.le,
            ">=": operator.ge,
            "==": operator.eq,
        }
        return ops[self.op](value, self.target)

    def text(self) -> str:
        """The aim as printed."""
        return f"{self.op} {self.target:g}{(' ' + self.unit) if self.unit else ''}"


# Figure name (bench: flattened path) -> its aim. Issue 19 items 1-5, and the benches' own aims.
AIMS: dict[str, Aim] = {
    # 1. cold start: launch -> the model's first request
    "cli: gg --version.median_ms": Aim("<=", 60, "ms"),
    "cli: first request, --no-daemon.median_ms": Aim("<=", 500, "ms"),
    "cli: first request, daemon running.p90_ms": Aim("<=", 150, "ms"),
    "cli: first delta, daemon running.median_ms": Aim("<=", 80, "ms", "the CLI bench's own aim"),
    # 2. session store: open + snapshot as gg/session.open's answer bytes, from the derived
    # snapshot file (a hit); open_snapshot_ms (Python objects) and its floor stay as information
    "session_store: open[10000 linear].open_wire_hit_ms": Aim(
        "<=", 5, "ms", "open + wire snapshot from the derived file"
    ),
    "session_store: open[100000 linear].open_wire_hit_ms": Aim(
        "<=", 60, "ms", "open + wire snapshot from the derived file"
    ),
    "session_store: append.p99_beyond_bare_fsyncs": Aim(
        "<=", 1, "fsyncs", "append p99 minus a bare write+fsync p99, over the bare p50"
    ),
    "session_store: open[10000 linear].idle_memory_mb": Aim("<=", 1, "MB", "per idle open session"),
    "session_store: open[10000 linear].wire_idle_memory_mb": Aim(
        "<=", 1, "MB", "after an open from the derived file"
    ),
    # 3. event fan-out
    "run_events: scenarios[1 subs].per_subscriber_events_per_s.min": Aim(">=", 100_000, "ev/s"),
    "run_events: scenarios[10 subs].per_subscriber_events_per_s.min": Aim(">=", 50_000, "ev/s"),
    "run_events: scenarios[1 subs].lost_events": Aim("==", 0),
    "run_events: scenarios[10 subs].lost_events": Aim("==", 0),
    "run_events: scenarios[1 subs].daemon_cpu_per_event_us": Aim("<=", 10, "us"),
    "run_events: scenarios[10 subs].daemon_cpu_per_event_us": Aim("<=", 10, "us"),
    "run_events: paced[10 subs].latency_p99_ms": Aim(
        "<=", 20, "ms", "rate: paced[].daemon_emit_events_per_s"
    ),
    "run_events: paced[10 subs].lost_events": Aim("==", 0),
    # the same with batchFrames (clients that opt in get queued messages as one array per frame)
    "run_events: batched[1 subs].per_subscriber_events_per_s.min": Aim(">=", 100_000, "ev/s"),
    "run_events: batched[10 subs].per_subscriber_events_per_s.min": Aim(">=", 50_000, "ev/s"),
    "run_events: batched[1 subs].lost_events": Aim("==", 0),
    "run_events: batched[10 subs].lost_events": Aim("==", 0),
    "run_events: batched[1 subs].daemon_stream_cpu_per_event_us": Aim(
        "<=", 10, "us", "first delta to the end, without the run's start"
    ),
    "run_events: batched[10 subs].daemon_stream_cpu_per_event_us": Aim("<=", 10, "us"),
    "run_events: paced_batched[10 subs].latency_p99_ms": Aim(
        "<=", 20, "ms", "rate: paced_batched[].daemon_emit_events_per_s"
    ),
    "run_events: paced_batched[10 subs].lost_events": Aim("==", 0),
    # 4. context cost (the harness's default config; perf-context measures the full one)
    "harness: tasks[10 steps].first_request_bytes": Aim("<=", 8192, "B"),
    "context: first_request_bytes": Aim("<=", 8192, "B", "every capability configured"),
    # 5. concurrency at scale
    "scale: rss_mib": Aim("<=", 300, "MiB"),
    "scale: lost_events": Aim("==", 0),
    "scale: failed_runs": Aim("==", 0),
    "scale: idle_list_ms": Aim("<=", 50, "ms", "for 1,000: see idle_sessions_listed"),
    # issue 33: the request prefix and prompt caching per provider kind, the 10-step task
    "provider_prefix: [openai-chat].kept_min": Aim(">=", 0.95, "", "of the request before"),
    "provider_prefix: [openai-responses].kept_min": Aim(">=", 0.95, "", "of the request before"),
    "provider_prefix: [anthropic].cached_share": Aim(
        ">=", 0.85, "", "input read from cache, requests 2..11"
    ),
}


def _label(item: dict[str, Any], index: int) -> str:
    """A stable name for one element of a list of result rows."""
    if "subscribers" in item:
        return f"{item['subscribers']} subs"
    if "entries" in item and "shape" in item:
        return f"{item['entries']} {item['shape']}"
    if "steps" in item:
        return f"{item['steps']} steps"
    if "kind" in item:
        return str(item["kind"])
    return str(index)


def flatten(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf) for every number or short string of a JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        if all(isinstance(v, int | float) for v in value):
            return  # raw samples: the bench reports their summary
        for i, v in enumerate(value):
            yield from flatten(v, f"{path}[{_label(v, i) if isinstance(v, dict) else i}]")
    elif isinstance(value, bool):
        yield path, int(value)
    elif isinstance(value, int | float):
        yield path, value
    elif isinstance(value, str) and len(value) <= 40:
        yield path, value


def run_bench(name: str, extra: list[str], timeout: float) -> dict[str, Any]:
    """Run one bench with --json; {"error": ...} when it fails."""
    cmd = [sys.executable, str(BENCH / f"{name}.py"), "--json", *extra]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"error": f"exit {proc.returncode}: {tail[0][:160]}"}
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        return {"error": f"not JSON ({exc})"}
    return {"result": out, "seconds": took}


def rows(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per figure: name, value, aim, status."""
    out: list[dict[str, Any]] = []
    for bench, res in results.items():
        if "error" in res:
            out.append({"figure": f"{bench}: (bench)", "value": res["error"], "status": "failed"})
            continue
        seen = set()
        mine: list[dict[str, Any]] = []
        for path, value in flatten(res["result"]):
            name = f"{bench}: {path}"
            seen.add(name)
            aim = AIMS.get(name)
            row: dict[str, Any] = {"figure": name, "value": value}
            if aim is not None:
                row["aim"] = aim.text()
                ok = isinstance(value, int | float) and aim.met(float(value))
                row["status"] = "met" if ok else "not met"
                if aim.note:
                    row["note"] = aim.note
            mine.append(row)
        # Within a bench, the figures with an aim come first (stable: in the bench's order).
        out += sorted(mine, key=lambda r: "aim" not in r)
        for name, aim in AIMS.items():
            if name.startswith(f"{bench}: ") and name not in seen:
                out.append(
                    {"figure": name, "value": None, "aim": aim.text(), "status": "not measured"}
                )
    return out


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _calibration_work() -> int:
    """A fixed piece of interpreter-bound work: calls, attributes, dicts, strings, like ggd's."""
    table: dict[str, int] = {}
    total = 0
    for i in range(60_000):
        key = f"k{i % 512}"
        table[key] = table.get(key, 0) + len(key)
        total += (i * 7) % 13 + table[key] % 3
    return total


def _calibration_ms() -> float:
    t0 = time.perf_counter()
    _calibration_work()
    return (time.perf_counter() - t0) * 1000


def host_speed(samples: int = 5) -> dict[str, float]:
    """How fast the machine runs Python right now: the calibration work's time in ms.

    The host is shared: its speed swings by tens of percent within an hour, and every
    CPU-bound figure moves with it. Measured before and after the benches, so a run's figures
    can be read against the speed they were made at (docs/benchmarks.md).
    """
    times = [_calibration_ms() for _ in range(samples)]
    return {"min_ms": min(times), "median_ms": statistics.median(times)}


class SpeedSampler:
    """The calibration work once every few seconds while the benches run, on a thread of this
    (otherwise waiting) process: ~0.5 % of one core. The host's speed switches on a scale of
    seconds, so the samples over the whole run say more than its two ends."""

    def __init__(self, every_s: float = 5.0) -> None:
        self.every_s = every_s
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SpeedSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.samples.append(_calibration_ms())

    def summary(self) -> dict[str, float]:
        """Count, median and p90 of the samples (ms)."""
        if not self.samples:
            return {"samples": 0}
        median = statistics.median(self.samples)
        return {
            "samples": len(self.samples),
            "median_ms": median,
            "p90_ms": percentile(self.samples, 90),
        }


def print_table(table: list[dict[str, Any]], load: tuple[float, float]) -> None:
    """The one table: aimed figures first within each bench, then the rest."""
    width = min(78, max(len(r["figure"]) for r in table))
    print(f"{'figure':<{width}} {'value':>14} {'aim':>16}  status")
    for r in table:
        name = r["figure"] if len(r["figure"]) <= width else "..." + r["figure"][-width + 3 :]
        line = f"{name:<{width}} {_fmt(r['value']):>14} {r.get('aim', '-'):>16}  "
        print(line + r.get("status", "-") + (f" ({r['note']})" if r.get("note") else ""))
    aimed = [r for r in table if "status" in r]
    met = sum(1 for r in aimed if r["status"] == "met")
    print(f"\n{met} of {len(aimed)} aims met; load average 1 min {load[0]:.1f} -> {load[1]:.1f}")
    print("(one run on a shared 2-core machine: figures are each bench's own medians)")


def main() -> int:
    """Run the benches and print the table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated bench names (default: all)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = ap.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        ap.error(f"unknown bench {', '.join(unknown)} (known: {', '.join(BENCHES)})")
    load0 = os.getloadavg()[0]
    speed0 = host_speed()
    results: dict[str, dict[str, Any]] = {}
    with SpeedSampler() as sampler:
        for name in names:
            extra, timeout = BENCHES[name]
            if args.quick and name in QUICK:
                extra = QUICK[name]
            print(f"running {name} ...", file=sys.stderr, flush=True)
            results[name] = run_bench(name, extra, timeout)
    host = {"before": speed0, "during": sampler.summary(), "after": host_speed()}
    results["host"] = {"result": host, "seconds": 0.0}
    table = rows(results)
    load = (load0, os.getloadavg()[0])
    if args.json:
        aimed = [r for r in table if "status" in r]
        summary = {"met": sum(1 for r in aimed if r["status"] == "met"), "aims": len(aimed)}
        print(json.dumps({"figures": table, "summary": summary, "loadavg_1m": load}, indent=2))
    else:
        print_table(table, load)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
