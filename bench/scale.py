"""Concurrency at scale: many sessions, concurrent runs with approvals, many WebSocket watchers.

    .venv/bin/python bench/scale.py [--sessions 200] [--runs 16] [--clients 20] [--idle 1000] [--json]

One fresh ggd behind the zero-latency fake. A driver WebSocket client creates --sessions
sessions, then starts --runs interactive runs (approvalMode auto) at once, each on its own
session, running the t10 shape: ten tool turns (reads; every fifth a write, which asks for
approval) then a final answer. The fake serves one shared script in order, so the 10-per-run
split is exact in total (runs*10 tool turns, runs finals) though one run may take a turn of
another's. The driver answers each approval as soon as it sees it; the round trip is driver
receive of approval_requested to receive of approval_resolved. --clients more WebSocket clients
subscribe to every run from sequence 0 and must each get every event of every run. Then
sessions are added up to --idle and the whole list is paged (limit 500) --list-repeats times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import bench_daemon, cpu_seconds, exit_on_signals, peak_rss_kib, percentile
from _lean_client import LeanClient

RUN_TIMEOUT_S = 300.0


def t10_script(runs: int) -> list[dict[str, Any]]:
    """runs*10 tool turns (every fifth a write that needs approval), then runs final answers."""
    steps: list[dict[str, Any]] = []
    for i in range(runs * 10):
        if i % 5 == 4:
            call = {"name": "write", "arguments": {"path": f"out/{i}.md", "content": f"{i}\n"}}
        else:
            call = {"name": "read", "arguments": {"path": "README.md", "limit": 20}}
        steps.append({"text": "Next step.", "toolCalls": [call], "usage": True})
    steps += [{"text": "All ten steps done.", "usage": True} for _ in range(runs)]
    return steps


def make_workspace(ws: Path) -> None:
    """A README for the reads."""
    (ws / "README.md").write_text("# scale bench\n" + "line\n" * 50)


class Driver(LeanClient):
    """Starts the runs and answers approvals the moment they arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: dict[str, float] = {}
        self.resolved: dict[str, float] = {}
        self.finished: set[str] = set()
        self.expected = 0
        self.all_done = asyncio.Event()
        self._answers: list[asyncio.Task[Any]] = []

    async def _read(self) -> None:
        assert self._ws is not None
        try:
            async for msg in self._ws:
                text = msg if isinstance(msg, str) else msg.decode()
                now = time.perf_counter()
                self.frames.append((time.time(), text))
                if "gg/run.event" not in text[:80]:
                    resp = json.loads(text)
                    fut = self._acks.pop(resp.get("id"), None)
                    if fut is not None and not fut.done():
                        fut.set_result(resp)
                    continue
                if '"approval_requested"' in text:
                    ev = json.loads(text)["params"]
                    aid = ev["approval"]["id"]
                    self.asked[aid] = now
                    params = {"runId": ev["runId"], "approvalId": aid, "allow": True}
                    self._answers.append(asyncio.create_task(self.call("gg/run.approve", params)))
                elif '"approval_resolved"' in text:
                    self.resolved[json.loads(text)["params"]["approvalId"]] = now
                elif '"type":"run_' in text and '"type":"run_started"' not in text:
                    self.finished.add(json.loads(text)["params"]["runId"])
                    if len(self.finished) >= self.expected:
                        self.all_done.set()
        except Exception:  # the socket closed: the figures say what arrived
            return


def lost(client: LeanClient, finals: dict[str, int]) -> int:
    """Events of the runs this client should have and did not get."""
    got: dict[str, set[int]] = {rid: set() for rid in finals}
    for _, ev in client.events():
        if ev["runId"] in got:
            got[ev["runId"]].add(ev["sequence"])
    return sum(n - len(got[rid] & set(range(1, n + 1))) for rid, n in finals.items())


async def measure(b: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Drive the whole scenario on one daemon."""
    driver = Driver()
    watchers = [LeanClient() for _ in range(args.clients)]
    try:
        await asyncio.gather(*(c.open(b.daemon.ws_url) for c in [driver, *watchers]))
        t_create = time.perf_counter()
        sids = [
            (await driver.call("gg/session.create", {}))["sessionId"] for _ in range(args.sessions)
        ]
        create_s = time.perf_counter() - t_create
        driver.expected = args.runs
        cpu0 = cpu_seconds(b.pid)
        t0 = time.perf_counter()
        starts = [
            driver.call(
                "gg/run.start",
                {"sessionId": sid, "prompt": "do the ten steps", "interactive": True},
            )
            for sid in sids[: args.runs]
        ]
        rids = [r["runId"] for r in await asyncio.gather(*starts)]
        for w in watchers:
            w.subscribed_ms = time.time() * 1000
        await asyncio.gather(
            *(
                w.call("gg/run.subscribe", {"runId": r, "afterSequence": 0})
                for w in watchers
                for r in rids
            )
        )
        await asyncio.wait_for(driver.all_done.wait(), RUN_TIMEOUT_S)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(b.pid) - cpu0
        statuses = [(await driver.call("gg/run.get", {"runId": r}))["status"] for r in rids]
        finals = {}
        for r in rids:
            evs = [e for _, e in driver.events() if e["runId"] == r]
            finals[r] = max(e["sequence"] for e in evs)
        # Let the watchers drain: each must reach every run's terminal event or go idle.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(lost(w, finals) for w in watchers):
            await asyncio.sleep(0.05)
        lost_events = sum(lost(w, finals) for w in watchers)
        rtt = [
            (driver.resolved[a] - t) * 1000 for a, t in driver.asked.items() if a in driver.resolved
        ]
        rss = peak_rss_kib(b.pid)
        more = max(0, args.idle - args.sessions)
        for _ in range(more):
            await driver.call("gg/session.create", {})
        list_ms, listed = [], 0
        for _ in range(args.list_repeats):
            t = time.perf_counter()
            cursor, listed = None, 0
            while True:
                params: dict[str, Any] = {"limit": 500} | ({"cursor": cursor} if cursor else {})
                page = await driver.call("gg/session.list", params)
                listed += len(page["sessions"])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            list_ms.append((time.perf_counter() - t) * 1000)
    finally:
        await asyncio.gather(*(c.close() for c in [driver, *watchers]), return_exceptions=True)
    return {
        "sessions": args.sessions,
        "runs": args.runs,
        "clients": args.clients,
        "create_sessions_s": create_s,
        "wall_s": wall,
        "failed_runs": sum(1 for s in statuses if s != "completed"),
        "events_per_run_median": statistics.median(finals.values()),
        "approvals": len(driver.asked),
        "approvals_resolved": len(rtt),
        "approval_rtt_p50_ms": percentile(rtt, 50),
        "approval_rtt_p99_ms": percentile(rtt, 99),
        "lost_events": lost_events,
        "model_requests": len(b.model.requests),
        "daemon_cpu_s": cpu,
        "rss_mib": rss / 1024,
        "idle_sessions_listed": listed,
        "idle_list_ms": statistics.median(list_ms),
        "loadavg_1m": os.getloadavg()[0],
    }


def main() -> int:
    """Run the scenario and print figures (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--runs", type=int, default=16)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--idle", type=int, default=1000, help="sessions present when listing")
    ap.add_argument("--list-repeats", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    exit_on_signals()
    args.runs = max(1, min(args.runs, args.sessions))
    with bench_daemon(t10_script(args.runs), setup=make_workspace) as b:
        out = asyncio.run(measure(b, args))
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    aims = {
        "rss_mib": "<= 300",
        "lost_events": "== 0",
        "idle_list_ms": "<= 50",
        "failed_runs": "== 0",
    }
    print(
        f"scale: {args.sessions} sessions, {args.runs} concurrent t10 runs, {args.clients} watchers"
    )
    for k, v in out.items():
        val = f"{v:,.1f}" if isinstance(v, float) else str(v)
        print(f"  {k:<24} {val:>12}  {('aim ' + aims[k]) if k in aims else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
