"""`gg job`: scheduled jobs (add, list, show, pause, resume, remove, run, log) over gg/job.*."""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime
from typing import Any

from ggcli.argtypes import add_budget_flags, budget_of

NAMES = ("job",)

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str) -> float:
    """Seconds from 90s, 10m, 1h30m, 2d or a bare number of seconds; ValueError otherwise."""
    raw = text.strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+(?:\.\d+)?", raw):
        value = float(raw)
    else:
        pos, value = 0, 0.0
        for m in _DURATION.finditer(raw):
            if m.start() != pos:
                break
            value += float(m.group(1)) * _UNITS[m.group(2)]
            pos = m.end()
        if not raw or pos != len(raw):
            raise ValueError(f"{text!r} is not a duration (for example 90s, 10m, 1h30m, 2d)")
    if value <= 0:
        raise ValueError("a duration must be positive")
    return value


def _duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(sub: Any) -> None:
    """Add `gg job ...` to the subcommand parser."""
    from ggcli.commands import add_connection_flags

    p = sub.add_parser("job", help="scheduled jobs that run the agent unattended")
    jsub = p.add_subparsers(dest="action", required=True)
    add = jsub.add_parser("add", help="add a cron or one-shot job")
    when = add.add_mutually_exclusive_group(required=True)
    when.add_argument("--cron", metavar="EXPR", help="5-field cron, or @hourly/@daily/@weekly")
    when.add_argument("--at", metavar="TIME", help="once, at an RFC 3339 time")
    when.add_argument("--in", dest="in_", type=_duration, metavar="DURATION", help="once, after")
    add.add_argument("--name", required=True, help="a unique name")
    add.add_argument("--timezone", metavar="TZ", help="IANA zone (default: the daemon's)")
    add.add_argument(
        "--allow-all", action="store_true", help="allow approval-gated tools (never dangerous)"
    )
    add.add_argument("--timeout", type=_duration, metavar="DUR", help="run time limit (10m)")
    add.add_argument("--model", help="model as provider:model")
    add_budget_flags(add, "each run of the job")
    add.add_argument("--paused", action="store_true", help="add it paused")
    add.add_argument("prompt", nargs="+", metavar="PROMPT")
    ls = jsub.add_parser("list", help="this workspace's jobs")
    ls.add_argument("--all", action="store_true", help="every workspace's jobs")
    for name, text in (
        ("show", "one job and its recent runs"),
        ("pause", "stop a job from firing"),
        ("resume", "let a paused job fire again"),
        ("remove", "delete a job"),
        ("run", "fire a job now"),
    ):
        q = jsub.add_parser(name, help=text)
        q.add_argument("job", metavar="NAME", help="job name or id")
        if name == "run":
            q.add_argument("--wait", action="store_true", help="wait for the run and print it")
    log = jsub.add_parser("log", help="run records, newest first")
    log.add_argument("job", nargs="?", metavar="NAME")
    log.add_argument("-n", "--limit", type=int, default=20)
    for q in jsub.choices.values():
        q.add_argument("--json", action="store_true", help="print the JSON result")
        add_connection_flags(q)


def _local(ms: int | None, tz: str | None = None) -> str:
    if not ms:
        return "-"
    try:
        from zoneinfo import ZoneInfo

        zone = ZoneInfo(tz) if tz else None
    except Exception:
        zone = None
    when = datetime.fromtimestamp(ms / 1000, zone) if zone else datetime.fromtimestamp(ms / 1000)
    return when.strftime("%Y-%m-%d %H:%M %Z").strip()


def format_jobs(jobs: list[dict[str, Any]], last: dict[str, str]) -> str:
    """One line per job: name, schedule, next run in the job's zone, last status."""
    if not jobs:
        return "no jobs in this workspace (add one with `gg job add`)"
    rows = []
    for j in jobs:
        state = "" if j.get("enabled", True) else " (paused)"
        rows.append(
            f"{j['name']}{state}  {j['kind']} {j['schedule']}  {j['timezone']}  "
            f"next {_local(j.get('nextRun'), j['timezone'])}  "
            f"last {last.get(j['id'], '-')}  runs {j.get('runCount', 0)}"
        )
    return "\n".join(rows)


def format_runs(runs: list[dict[str, Any]]) -> str:
    """One line per run record."""
    if not runs:
        return "no runs yet"
    out = []
    for r in runs:
        summary = " ".join(str(r.get("summary") or "").split())[:80]
        out.append(
            f"{_local(r.get('startedAt'))}  {r['status']:<11}  {r.get('sessionId') or '-'}  "
            f"{summary}".rstrip()
        )
    return "\n".join(out)


def _warn_no_daemon(args: argparse.Namespace) -> None:
    from ggcli.discovery import gg_home, live_daemon

    if args.no_daemon:
        sys.stderr.write(
            "gg: warning: a private ggd (--no-daemon) does not fire jobs; it fires when `ggd` "
            "runs (start it with `gg daemon start` or `ggd install-service`)\n"
        )
    elif live_daemon(gg_home()) is None:
        sys.stderr.write(
            "gg: warning: no ggd was running to fire this job; the one started now exits when "
            "idle. Keep one running: `gg daemon start` or `ggd install-service`\n"
        )


def _add_params(args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = {"name": args.name, "prompt": " ".join(args.prompt)}
    if args.cron is not None:
        params["cron"] = args.cron
    elif args.at is not None:
        params["at"] = args.at
    else:
        params["inSeconds"] = args.in_
    for key, value in (("timezone", args.timezone), ("timeout", args.timeout)):
        if value is not None:
            params[key] = value
    if args.model:
        params["model"] = args.model
    budget = budget_of(args)
    if budget:
        params["budget"] = budget
    if args.allow_all:
        params["allowAll"] = True
    if args.paused:
        params["enabled"] = False
    return params


def _wait_finished(client: Any, run_id: str) -> dict[str, Any] | None:
    while True:
        note = client.next_notification(None)
        if note is None:
            return None
        p = note.get("params") or {}
        if note.get("method") == "gg/job.event" and p.get("type") == "finished":
            if (p.get("run") or {}).get("id") == run_id:
                return dict(p["run"])


def run(args: argparse.Namespace) -> int:
    """Run one `gg job` action."""
    from ggcli.commands import connect

    warn = args.action == "add"
    if warn:
        _warn_no_daemon(args)
    client = connect(args)
    try:
        return _act(client, args)
    finally:
        client.close()


def _act(client: Any, args: argparse.Namespace) -> int:
    action = args.action
    if action == "add":
        res = client.request("gg/job.add", _add_params(args))
        state = (client.request("gg/job.list", {}) or {}).get("scheduler", "running")
        job = res["job"]
        if args.json:
            print(json.dumps(job))
        else:
            print(
                f"added {job['name']} ({job['id']}): next {_local(job.get('nextRun'), job['timezone'])}"
            )
        if state != "running" and not args.no_daemon:
            sys.stderr.write(f"gg: warning: jobs do not fire in this daemon: {state}\n")
        return 0
    if action == "list":
        res = client.request("gg/job.list", {"all": args.all})
        if args.json:
            print(json.dumps(res))
        else:
            print(format_jobs(res.get("jobs") or [], res.get("lastStatus") or {}))
            if res.get("scheduler") != "running":
                print(f"(jobs do not fire in this daemon: {res.get('scheduler')})")
        return 0
    if action == "log":
        params: dict[str, Any] = {"limit": args.limit}
        if args.job:
            params["job"] = args.job
        runs = (client.request("gg/job.log", params) or {}).get("runs") or []
        print(json.dumps(runs) if args.json else format_runs(runs))
        return 0
    if action == "show":
        job = _find(client, args.job)
        runs = (client.request("gg/job.log", {"job": job["id"], "limit": 5}) or {}).get("runs")
        if args.json:
            print(json.dumps({"job": job, "runs": runs}))
            return 0
        for key in ("id", "name", "kind", "schedule", "timezone", "enabled", "allowAll"):
            print(f"{key}: {job.get(key)}")
        print(f"timeout: {job.get('timeout')} s")
        if job.get("budget"):
            print(f"budget: {json.dumps(job['budget'])}")
        print(f"next run: {_local(job.get('nextRun'), job['timezone'])}")
        print(
            f"last run: {_local(job.get('lastRun'), job['timezone'])} ({job.get('runCount', 0)} runs)"
        )
        print(f"prompt: {job['prompt']}")
        print(format_runs(runs or []))
        return 0
    if action == "run":
        res = client.request("gg/job.run", {"job": args.job})
        rec = res["run"]
        if args.wait and rec["status"] == "running":
            rec = _wait_finished(client, rec["id"]) or rec
        if args.json:
            print(json.dumps(rec))
        else:
            print(f"{res['job']['name']}: {rec['status']}  session {rec.get('sessionId') or '-'}")
            if rec.get("summary"):
                print(rec["summary"])
        return 0 if rec["status"] in ("running", "ok") else 1
    res = client.request(f"gg/job.{action}", {"job": args.job})
    job = res["job"]
    if args.json:
        print(json.dumps(job))
    else:
        verb = {"pause": "paused", "resume": "resumed", "remove": "removed"}[action]
        print(f"{verb} {job['name']}")
    return 0


def _find(client: Any, ref: str) -> dict[str, Any]:
    from ggcli.rpc import RpcError

    jobs = (client.request("gg/job.list", {}) or {}).get("jobs") or []
    for j in jobs:
        if j["id"] == ref or j["name"].lower() == ref.lower():
            return dict(j)
    raise RpcError(-32013, f"no job {ref!r} here (see `gg job list`)")


__all__ = ["NAMES", "format_jobs", "format_runs", "parse_duration", "register", "run"]
