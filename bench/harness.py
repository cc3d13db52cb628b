"""Harness overhead: scripted 10-step and 100-step tool-calling tasks against the zero-latency fake.

    .venv/bin/python bench/harness.py [--steps 10,100] [--repeat 1] [--no-cli] [--json]

Each task runs on a fresh ggd with a temp workspace of a few files. The fake model answers
instantly; each of the N model turns asks for one tool (read, list, grep, or bash `echo hi`,
round-robin), then one more turn gives the final answer, so a task makes N+1 model requests.
The run is started over WebSocket with approvalMode=yolo. Measured: wall time from gg/run.start
to the terminal event, the daemon's CPU (user+sys from /proc/<pid>/stat, before/after the run),
its peak RSS (VmHWM; the daemon is fresh, so this is start-up plus the task), and the bytes the
daemon sent to the model (sum of request Content-Length). With `ggcli` installed, the 10-step task
also runs through `gg -p ... --approval yolo` against an already running daemon.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import Bench, bench_daemon, cpu_seconds, exit_on_signals, peak_rss_kib, percentile

from tests.e2e.runs_helpers import finish, new_session, start

GG = Path(sys.executable).parent / "gg"
RUN_TIMEOUT_S = 300.0
TURNS_PER_RUN = 40


def make_workspace(ws: Path) -> None:
    """A small project: a README, two modules, notes with TODOs."""
    (ws / "src").mkdir()
    (ws / "docs").mkdir()
    (ws / "README.md").write_text("# demo project\n\nA tiny project for the harness benchmark.\n")
    (ws / "src" / "app.py").write_text(
        "from util import greet\n\n# TODO: read the name from argv\nprint(greet('world'))\n"
    )
    (ws / "src" / "util.py").write_text(
        "def greet(name: str) -> str:\n    # TODO: i18n\n    return f'hello, {name}'\n" * 20
    )
    (ws / "docs" / "notes.md").write_text(
        "".join(f"- note {i}: TODO item {i}\n" for i in range(50))
    )


TOOL_CALLS: list[dict[str, Any]] = [
    {"name": "read", "arguments": {"path": "src/util.py"}},
    {"name": "list", "arguments": {"path": "src"}},
    {"name": "grep", "arguments": {"pattern": "TODO", "literal": True}},
    {"name": "bash", "arguments": {"command": "echo hi"}},
    {"name": "read", "arguments": {"path": "README.md"}},
]


def chunks(steps: int) -> list[int]:
    """Tool turns per run: a run may make at most 50 model requests (the agent's max_turns)."""
    return [min(TURNS_PER_RUN, steps - i) for i in range(0, steps, TURNS_PER_RUN)]


def script(steps: int) -> list[dict[str, Any]]:
    """Per run: its tool-calling turns, round-robin over TOOL_CALLS, then a final answer."""
    out: list[dict[str, Any]] = []
    done = 0
    for part, n in enumerate(chunks(steps), 1):
        for i in range(done, done + n):
            call = TOOL_CALLS[i % len(TOOL_CALLS)]
            out.append({"text": f"Step {i + 1}.", "toolCalls": [call], "usage": True})
        done += n
        out.append({"text": f"Done with part {part} ({done} steps).", "usage": True})
    return out


def tool_times(events: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per tool name: calls and mean ms from tool_call_start to tool_call_finish (daemon clock)."""
    started = {e["toolCallId"]: e["timestamp"] for e in events if e["type"] == "tool_call_start"}
    acc: dict[str, list[float]] = {}
    for e in events:
        if e["type"] == "tool_call_finish" and e["toolCallId"] in started:
            ms = float(e["timestamp"] - started[e["toolCallId"]])
            acc.setdefault(e["toolName"], []).append(ms)
    return {
        k: {"calls": len(v), "mean_ms": sum(v) / len(v), "total_ms": sum(v)} for k, v in acc.items()
    }


def model_bytes(b: Bench) -> tuple[int, int]:
    """Requests the fake got, and the sum of their body sizes (Content-Length, else re-encoded)."""
    total = 0
    for body, headers in zip(b.model.requests, b.model.request_headers, strict=True):
        length = headers.get("content-length")
        total += int(length) if length else len(json.dumps(body, separators=(",", ":")).encode())
    return len(b.model.requests), total


async def ws_task(b: Bench, steps: int) -> dict[str, Any]:
    """Drive one task (one run per chunk, same session) over WebSocket and measure it."""
    c = await b.daemon.connect("ws")
    statuses: list[str] = []
    try:
        sid = await new_session(c)
        cpu0 = cpu_seconds(b.pid)
        t0 = time.perf_counter()
        for n in chunks(steps):
            rid = await start(c, sid, f"do the next {n} steps", approvalMode="yolo")
            statuses.append((await finish(c, rid, timeout=RUN_TIMEOUT_S))["type"])
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(b.pid) - cpu0
        events = c.events()
    finally:
        await c.close()
    finishes = [e for e in events if e["type"] == "tool_call_finish"]
    requests, sent = model_bytes(b)
    tools = tool_times(events)
    in_tools_s = sum(t["total_ms"] for t in tools.values()) / 1000
    ok = all(s == "run_completed" for s in statuses)
    return {
        "steps": steps,
        "runs": len(statuses),
        "status": "completed" if ok else ",".join(statuses),
        "wall_s": wall,
        "per_request_ms": wall * 1000 / max(1, requests),
        "in_tools_s": in_tools_s,
        "outside_tools_per_request_ms": (wall - in_tools_s) * 1000 / max(1, requests),
        "daemon_cpu_s": cpu,
        "daemon_cpu_per_request_ms": cpu * 1000 / max(1, requests),
        "daemon_peak_rss_mib": peak_rss_kib(b.pid) / 1024,
        "model_requests": requests,
        "model_bytes_sent": sent,
        "first_request_bytes": int(b.model.request_headers[0].get("content-length") or 0)
        if b.model.request_headers
        else 0,
        "largest_request_bytes": max(
            (int(h.get("content-length") or 0) for h in b.model.request_headers), default=0
        ),
        "tool_calls": len(finishes),
        "tool_errors": sum(1 for e in finishes if e.get("isError")),
        "tool_mean_ms": {k: v["mean_ms"] for k, v in sorted(tools.items())},
        "events": len(events),
        "mismatches": len(b.model.mismatches),
    }


def cli_task(b: Bench, steps: int) -> dict[str, Any]:
    """The same task through `gg -p --approval yolo`, using the running daemon."""
    env = dict(b.daemon.env) | {"NO_COLOR": "1"}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(GG), "-p", f"do the {steps}-step task", "--approval", "yolo"],
        cwd=b.workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=RUN_TIMEOUT_S,
    )
    wall = time.perf_counter() - t0
    requests, sent = model_bytes(b)
    if proc.returncode != 0 or requests != steps + 1:
        tail = proc.stderr.decode(errors="replace")[-300:]
        raise RuntimeError(f"gg exited {proc.returncode} after {requests} model requests: {tail}")
    return {"steps": steps, "wall_s": wall, "model_requests": requests, "model_bytes_sent": sent}


def run_ws(steps: int, real_home: bool) -> dict[str, Any]:
    """One WebSocket-driven task on a fresh daemon."""
    with bench_daemon(script(steps), setup=make_workspace, real_home=real_home) as b:
        return asyncio.run(ws_task(b, steps))


def run_cli(steps: int, real_home: bool) -> dict[str, Any] | str:
    """One gg -p task on a fresh daemon; a note instead when gg is unavailable or fails."""
    if not GG.exists():
        return f"skipped: {GG} not found"
    try:
        with bench_daemon(script(steps), setup=make_workspace, real_home=real_home) as b:
            return cli_task(b, steps)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        return f"skipped: gg -p failed ({exc})"


def summarize(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Median of each numeric field over repeats (the last sample for the rest)."""
    out = dict(samples[-1])
    for key, value in samples[-1].items():
        if isinstance(value, int | float) and key not in ("steps",):
            out[key] = percentile([s[key] for s in samples], 50)
    out["repeats"] = len(samples)
    return out


def _tool_cell(tool: str) -> Any:
    return lambda r: f"{r['tool_mean_ms'].get(tool, 0.0):.1f}"


def print_table(ws: list[dict[str, Any]], cli: dict[str, Any] | str | None) -> None:
    """A readable table, one column per task size."""
    print("harness: scripted tool-calling task, zero-latency fake model, WebSocket, yolo")
    rows: list[tuple[str, Any]] = [
        ("model turns with a tool call", lambda r: f"{r['steps']}"),
        ("runs (max 50 requests each)", lambda r: f"{r['runs']:.0f}"),
        ("status", lambda r: r["status"]),
        ("wall time (s)", lambda r: f"{r['wall_s']:.3f}"),
        ("wall per model request (ms)", lambda r: f"{r['per_request_ms']:.1f}"),
        ("time inside tools (s)", lambda r: f"{r['in_tools_s']:.3f}"),
        ("outside tools / request (ms)", lambda r: f"{r['outside_tools_per_request_ms']:.1f}"),
        ("daemon CPU user+sys (s)", lambda r: f"{r['daemon_cpu_s']:.2f}"),
        ("daemon CPU / request (ms)", lambda r: f"{r['daemon_cpu_per_request_ms']:.1f}"),
        ("daemon peak RSS (MiB)", lambda r: f"{r['daemon_peak_rss_mib']:.1f}"),
        ("model requests", lambda r: f"{r['model_requests']:.0f}"),
        ("bytes sent to model", lambda r: f"{r['model_bytes_sent']:,.0f}"),
        ("first request (bytes)", lambda r: f"{r['first_request_bytes']:,.0f}"),
        ("largest request (bytes)", lambda r: f"{r['largest_request_bytes']:,.0f}"),
        ("tool calls / errors", lambda r: f"{r['tool_calls']:.0f} / {r['tool_errors']:.0f}"),
        ("run events", lambda r: f"{r['events']:.0f}"),
    ]
    for tool in ("read", "list", "grep", "bash"):
        rows.append((f"mean {tool} call (ms)", _tool_cell(tool)))
    for label, fmt in rows:
        print(f"{label:<30}" + "".join(f"{fmt(r):>14}" for r in ws))
    if ws and ws[0].get("repeats", 1) > 1:
        print(f"(medians of {ws[0]['repeats']} repeats)")
    if isinstance(cli, dict):
        print(
            f"gg -p --approval yolo, {cli['steps']} steps (daemon running):"
            f" wall {cli['wall_s']:.3f} s, {cli['model_requests']:.0f} model requests"
        )
    elif cli is not None:
        print(f"gg -p: {cli}")


def main() -> int:
    """Run the tasks and print a table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="10,100", help="comma-separated task sizes (model turns)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per size (medians are reported)")
    ap.add_argument("--no-cli", action="store_true", help="skip the gg -p measurement")
    ap.add_argument(
        "--real-home", action="store_true", help="keep HOME (bash then sources your login profile)"
    )
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    exit_on_signals()
    sizes = [max(1, min(500, int(x))) for x in args.steps.split(",") if x.strip()]
    repeat = max(1, min(20, args.repeat))
    ws = [summarize([run_ws(n, args.real_home) for _ in range(repeat)]) for n in sizes]
    cli: dict[str, Any] | str | None = None
    if not args.no_cli:
        cli_runs = [run_cli(10, args.real_home) for _ in range(repeat)]
        ok = [r for r in cli_runs if isinstance(r, dict)]
        cli = (
            summarize(ok)
            if len(ok) == len(cli_runs)
            else next(r for r in cli_runs if isinstance(r, str))
        )
    load = os.getloadavg()[0]
    if args.json:
        print(
            json.dumps(
                {"tasks": ws, "gg_cli": cli, "loadavg_1m": load, "real_home": args.real_home},
                indent=2,
            )
        )
    else:
        print_table(ws, cli)
        home = "your HOME" if args.real_home else "an empty temp HOME (see --real-home)"
        print(f"load average (1 min) at the end: {load:.1f}; bash ran with {home}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
