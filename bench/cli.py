"""CLI cold start: `gg --version`, and time to the first text delta of `gg -p`.

    .venv/bin/python bench/cli.py [--runs N] [--json]

The model is the zero-latency scripted fake (tests/fakes/fake_openai.py). Every sample that starts
a daemon (auto-started or --no-daemon) gets a fresh GG_HOME: a first start, as a new user meets it.
"First request" is from spawning gg to the fake model receiving its first chat request (issue
19's launch -> first model request); "first delta" to the first byte on gg's (piped) stdout. Three
setups: a daemon already running, no daemon running (gg auto-starts one), and `--no-daemon`.
Aims: --version <= 60 ms; first request --no-daemon <= 0.5 s, with a running daemon <= 0.15 s p90.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _proc import cpu_seconds  # noqa: E402  (bench/ is this script's sys.path[0])

GG = str(Path(sys.executable).parent / "gg")


def time_version(env: dict[str, str], cwd: Path) -> float:
    """Seconds from spawn to exit of `gg --version`."""
    t0 = time.perf_counter()
    subprocess.run([GG, "--version"], env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def child_cpu(pid: int) -> float | None:
    """CPU seconds of a process's children (gg --no-daemon's private ggd), None if none."""
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return sum(cpu_seconds(int(k)) for k in kids) if kids else None
    except (OSError, ValueError):
        return None


def time_first_delta(
    env: dict[str, str], cwd: Path, extra: list[str], model: Any
) -> tuple[float, float, float, float | None]:
    """Seconds from spawn to the model's first request, the first stdout byte, and exit; and
    the CPU seconds gg's child (a private ggd) had used when that request arrived."""
    n0 = len(model.requests)
    asked: list[float] = []
    cpu: list[float | None] = []
    proc: subprocess.Popen[bytes] | None = None

    def watch() -> None:
        with contextlib.suppress(TimeoutError):
            model.wait_for_requests(n0 + 1, timeout=60)
            asked.append(time.perf_counter())
            cpu.append(child_cpu(proc.pid) if proc is not None else None)

    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [GG, *extra, "-p", "say hello"],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert proc.stdout is not None
    select.select([proc.stdout], [], [], 60)
    first = os.read(proc.stdout.fileno(), 1)
    t_first = time.perf_counter() - t0
    _rest, err = proc.communicate(timeout=60)
    t_exit = time.perf_counter() - t0
    watcher.join(5)
    if proc.returncode != 0 or not first or not asked:
        raise RuntimeError(f"gg -p failed ({proc.returncode}): {err.decode()[-500:]}")
    return asked[0] - t0, t_first, t_exit, cpu[0] if cpu else None


def precompile() -> None:
    """Write the .pyc files of gg's own packages, as an installed gg has them.

    An editable checkout run with PYTHONDONTWRITEBYTECODE (this machine sets it) would otherwise
    compile every ggd module from source at each start, ~0.2 s that no installed gg pays.
    """
    import compileall

    for pkg in ("ggd", "ggcli"):
        compileall.compile_dir(REPO / pkg, quiet=1)


def stop_daemon(home: Path) -> None:
    """SIGTERM the daemon of this GG_HOME and wait for it to go."""
    try:
        pid = int(json.loads((home / "run" / "ggd.json").read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)


def summarize(samples: list[float]) -> dict[str, float]:
    """Median, p90 and min in milliseconds."""
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]
    return {"median_ms": statistics.median(ms), "p90_ms": p90, "min_ms": ms[0], "n": len(ms)}


# A hosted provider as a user would configure one; never called (the fake model answers).
HOSTED = {"baseUrl": "https://llm.example.com/v1", "apiKeyEnv": "HOSTED_KEY", "models": ["big"]}


def main() -> int:
    """Run the benchmark and print a table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20, help="samples per warm measurement")
    ap.add_argument("--cold-runs", type=int, default=5, help="samples with daemon start-up")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()

    from tests.fakes.fake_openai import FakeModel

    precompile()
    tmp = Path(tempfile.mkdtemp(prefix="gg-bench-"))
    home, ws = tmp / "home", tmp / "ws"
    ws.mkdir()
    model = FakeModel([{"text": "hello from the fake model", "repeat": 10_000}], zero_latency=True)
    model.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GG_", "OPENAI_"))}
    env |= {"GG_HOME": str(home), "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "test"}
    env |= {"GG_MODEL": "fake-model", "NO_COLOR": "1"}
    results: dict[str, Any] = {}
    n_cold = max(1, args.cold_runs)
    try:
        time_version(env, ws)  # warm the page cache
        results["gg --version"] = summarize([time_version(env, ws) for _ in range(args.runs)])

        cold = []
        for i in range(n_cold):
            fresh = tmp / f"home-auto-{i}"
            cold.append(time_first_delta(env | {"GG_HOME": str(fresh)}, ws, [], model))
            stop_daemon(fresh)
        results["first request, daemon auto-started"] = summarize([c[0] for c in cold])
        results["first delta, daemon auto-started"] = summarize([c[1] for c in cold])

        time_first_delta(env, ws, [], model)  # starts the daemon of GG_HOME; it is up now
        warm = [time_first_delta(env, ws, [], model) for _ in range(args.runs)]
        results["first request, daemon running"] = summarize([w[0] for w in warm])
        results["first delta, daemon running"] = summarize([w[1] for w in warm])
        results["whole gg -p, daemon running"] = summarize([w[2] for w in warm])
        stop_daemon(home)

        def fresh(i: int, kind: str, base: dict[str, str] = env) -> dict[str, str]:
            return base | {"GG_HOME": str(tmp / f"home-{kind}-{i}")}

        private = [
            time_first_delta(fresh(i, "private"), ws, ["--no-daemon"], model) for i in range(n_cold)
        ]
        results["first request, --no-daemon"] = summarize([p[0] for p in private])
        results["first delta, --no-daemon"] = summarize([p[1] for p in private])
        results["whole gg -p, --no-daemon"] = summarize([p[2] for p in private])
        ticks = [p[3] for p in private if p[3] is not None]
        if ticks:  # steadier than wall time on a loaded machine
            results["private ggd CPU to first request"] = summarize(ticks)
        # The same with an https provider in config.json (not the one answering): start-up then
        # parses the CA bundle, as every user of a hosted model's does (ggd/providers/tls.py).
        pinned = env | {"GG_MODEL": "openai:fake-model"}  # the fake, not the hosted one
        tls = []
        for i in range(n_cold):
            e = fresh(i, "https", pinned)
            Path(e["GG_HOME"]).mkdir(mode=0o700)
            config = Path(e["GG_HOME"]) / "config.json"
            config.write_text(json.dumps({"providers": {"hosted": HOSTED}}))
            tls.append(time_first_delta(e, ws, ["--no-daemon"], model))
        results["first request, --no-daemon, https configured"] = summarize([t[0] for t in tls])
        ticks = [t[3] for t in tls if t[3] is not None]
        if ticks:
            results["private ggd CPU, https configured"] = summarize(ticks)
    finally:
        stop_daemon(home)
        model.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'measurement':<36} {'median':>9} {'p90':>9} {'min':>9} {'n':>4}")
    for name, r in results.items():
        print(
            f"{name:<36} {r['median_ms']:>7.1f}ms {r['p90_ms']:>7.1f}ms {r['min_ms']:>7.1f}ms"
            f" {r['n']:>4}"
        )
    print(
        "aims: gg --version <= 60 ms; first request: --no-daemon <= 500 ms, daemon running p90 <= 150 ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
