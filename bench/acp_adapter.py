"""What `ggd --acp` adds to a turn: ACP session/prompt vs gg/run.start on the same daemon.

    .venv/bin/python bench/acp_adapter.py [--turns 10] [--json]

One daemon against the zero-latency fake model. Timed: `ggd --acp` start-up to an answered
initialize and the first session/new (it attaches to the daemon); then N one-answer turns through
ACP (session/prompt to its response, driven by the Python ACP SDK) and N through the gg protocol
directly (gg/run.start to the terminal event, Unix socket). Medians; "added" is the difference.
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

import acp
from _common import bench_daemon, exit_on_signals
from acp.schema import TextContentBlock

from tests.e2e.acp_child import spawn_acp
from tests.e2e.runs_helpers import finish, new_session, start


class _Quiet:
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None


async def measure(b: Any, turns: int) -> dict[str, Any]:
    """Start-up ms, and per-turn ms over ACP and over gg directly."""
    t0 = time.perf_counter()
    proc = await spawn_acp(b.daemon.env, b.workspace)
    assert proc.stdin is not None and proc.stdout is not None
    conn = acp.connect_to_agent(_Quiet(), proc.stdin, proc.stdout)
    await conn.initialize(protocol_version=1)
    sid = (await conn.new_session(cwd=str(b.workspace))).session_id
    startup = (time.perf_counter() - t0) * 1000
    over_acp: list[float] = []
    for _ in range(turns):
        t = time.perf_counter()
        res = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="hi")])
        assert res.stop_reason == "end_turn", res
        over_acp.append((time.perf_counter() - t) * 1000)
    await conn.close()
    proc.stdin.close()
    await proc.wait()
    c = await b.daemon.connect("unix")
    direct: list[float] = []
    try:
        gsid = await new_session(c)
        for _ in range(turns):
            t = time.perf_counter()
            done = await finish(c, await start(c, gsid, "hi"), timeout=120)
            assert done["type"] == "run_completed", done
            direct.append((time.perf_counter() - t) * 1000)
    finally:
        await c.close()
    med = statistics.median
    return {
        "turns": turns,
        "startup_ms": round(startup, 1),
        "acp_turn_ms": round(med(over_acp), 1),
        "direct_turn_ms": round(med(direct), 1),
        "added_ms": round(med(over_acp) - med(direct), 1),
    }


def main() -> int:
    """Print the figures (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    ns = ap.parse_args()
    exit_on_signals()
    with bench_daemon([{"text": "ok"} for _ in range(2 * ns.turns + 2)]) as b:
        out = asyncio.run(measure(b, ns.turns))
    if ns.json:
        print(json.dumps(out))
    else:
        print(f"ggd --acp, {ns.turns} turns, medians:")
        print(f"  start-up (initialize + session/new)  {out['startup_ms']:8.1f} ms")
        print(
            f"  turn over ACP  {out['acp_turn_ms']:8.1f} ms  (gg directly: {out['direct_turn_ms']:.1f} ms)"
            f"  added {out['added_ms']:8.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
