"""First-turn latency added by 3 configured MCP servers, cold (connecting) and memoized.

    .venv/bin/python bench/mcp.py [--sessions 3] [--json]

Two fresh daemons against the zero-latency fake model: one with no mcp.json, one with three
stdio servers (mcp-server-time twice and server-everything when its npm package is installed,
else a third mcp-server-time). For each of N new sessions, the first turn (the servers connect,
concurrently) and the second turn (connections memoized on the session) are timed from
gg/run.start to the terminal event; the figures are medians, and "added" is the difference with
the daemon without MCP servers.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import bench_daemon, exit_on_signals

from tests.e2e.runs_helpers import finish, new_session, start

REPO = Path(__file__).resolve().parents[1]
EVERYTHING = REPO / "tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TIME = Path(sys.executable).parent / "mcp-server-time"


def servers() -> dict[str, Any]:
    """The three servers of the measured daemon."""
    out: dict[str, Any] = {
        "time": {"command": str(TIME)},
        "time2": {"command": str(TIME), "args": ["--local-timezone", "Etc/UTC"]},
    }
    if EVERYTHING.is_file():
        out["everything"] = {"command": "node", "args": [str(EVERYTHING)]}
    else:
        out["time3"] = {"command": str(TIME)}
    return out


async def measure(b: Any, sessions: int) -> tuple[list[float], list[float]]:
    """(first-turn ms, second-turn ms) for each new session."""
    c = await b.daemon.connect("unix")
    first: list[float] = []
    second: list[float] = []
    try:
        for _ in range(sessions):
            sid = await new_session(c)
            for bucket in (first, second):
                t0 = time.perf_counter()
                rid = await start(c, sid, "hi")
                done = await finish(c, rid, timeout=120)
                assert done["type"] == "run_completed", done
                bucket.append((time.perf_counter() - t0) * 1000)
    finally:
        await c.close()
    return first, second


def run(sessions: int, with_mcp: bool) -> tuple[list[float], list[float], list[str]]:
    """Measure one daemon; with_mcp configures the three servers."""
    script = [{"text": "ok"} for _ in range(2 * sessions + 2)]
    names: list[str] = []

    def setup(ws: Path) -> None:
        if with_mcp:
            home = ws.parent / "home"
            home.mkdir(parents=True, exist_ok=True)
            cfg = servers()
            names.extend(cfg)
            (home / "mcp.json").write_text(json.dumps({"servers": cfg}))

    with bench_daemon(script, setup=setup) as b:
        first, second = asyncio.run(measure(b, sessions))
    return first, second, names


def main() -> int:
    """Print the figures (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ns = ap.parse_args()
    exit_on_signals()
    base_first, base_second, _ = run(ns.sessions, False)
    mcp_first, mcp_second, names = run(ns.sessions, True)
    med = statistics.median
    out = {
        "servers": names,
        "sessions": ns.sessions,
        "baseline_first_turn_ms": round(med(base_first), 1),
        "baseline_second_turn_ms": round(med(base_second), 1),
        "mcp_first_turn_ms": round(med(mcp_first), 1),
        "mcp_second_turn_ms": round(med(mcp_second), 1),
        "added_cold_ms": round(med(mcp_first) - med(base_first), 1),
        "added_memoized_ms": round(med(mcp_second) - med(base_second), 1),
    }
    if ns.json:
        print(json.dumps(out))
    else:
        print(f"3 MCP servers ({', '.join(names)}), {ns.sessions} sessions, medians:")
        print(
            f"  first turn   {out['mcp_first_turn_ms']:8.1f} ms  (no MCP: {out['baseline_first_turn_ms']:.1f} ms)  added cold      {out['added_cold_ms']:8.1f} ms"
        )
        print(
            f"  second turn  {out['mcp_second_turn_ms']:8.1f} ms  (no MCP: {out['baseline_second_turn_ms']:.1f} ms)  added memoized  {out['added_memoized_ms']:8.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
