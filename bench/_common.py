"""Shared benchmark plumbing: a temp ggd on 127.0.0.1 behind the zero-latency fake, /proc stats."""

from __future__ import annotations

import contextlib
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from _proc import cpu_seconds  # noqa: E402

from tests.e2e.daemon import TOKEN, Daemon, daemon_env  # noqa: E402
from tests.fakes.fake_openai import FakeModel  # noqa: E402

__all__ = [
    "REPO",
    "TOKEN",
    "Bench",
    "bench_daemon",
    "cpu_seconds",
    "exit_on_signals",
    "peak_rss_kib",
    "percentile",
]


@dataclass
class Bench:
    """One running benchmark setup: the daemon, the fake model and the temp folders."""

    daemon: Daemon
    model: FakeModel
    home: Path
    workspace: Path

    @property
    def pid(self) -> int:
        """The daemon's process id."""
        assert self.daemon.proc is not None
        return self.daemon.proc.pid


@contextlib.contextmanager
def bench_daemon(
    script: list[dict[str, Any]],
    setup: Callable[[Path], None] | None = None,
    args: list[str] | None = None,
    real_home: bool = False,
    zero_latency: bool = True,
) -> Iterator[Bench]:
    """A ggd (Unix socket + WebSocket) talking to a zero-latency fake; all torn down on exit.

    Unless real_home, HOME is an empty temp folder: bash runs `$SHELL -lc`, and a user's login
    profile (pyenv init, say) would otherwise dominate every bash call being measured.
    """
    tmp = Path(tempfile.mkdtemp(prefix="gg-bench-"))
    home, ws = tmp / "home", tmp / "ws"
    ws.mkdir()
    if setup is not None:
        setup(ws)
    model = FakeModel(script, zero_latency=zero_latency).start()
    env = daemon_env(
        home,
        {"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "x", "GG_MODEL": "fake-model"},
    )
    # Benchmarks measure the daemon, not its log volume.
    env["GG_LOG_LEVEL"] = "warning"
    if not real_home:
        (tmp / "user").mkdir()
        env["HOME"] = str(tmp / "user")
    daemon = Daemon(home, ws, env, args=list(args or []))
    try:
        daemon.start()
        yield Bench(daemon, model, home, ws)
    except BaseException:
        # The temp folder (and the log in it) is about to go: show why the daemon failed.
        print(f"ggd log tail:\n{daemon.logs()[-2000:]}", file=sys.stderr)
        raise
    finally:
        if daemon.proc is not None:
            daemon.stop()
        model.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def exit_on_signals() -> None:
    """Turn SIGTERM/SIGHUP (and SIGINT, which shells ignore in background jobs) into SystemExit.

    So `finally` blocks run and the benchmark's daemon is stopped and its temp folder removed.
    """

    def _exit(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _exit)


def peak_rss_kib(pid: int) -> int:
    """Peak resident set size (VmHWM) in KiB, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of values; 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]
