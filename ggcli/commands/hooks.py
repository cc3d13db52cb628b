"""`gg hooks list|test EVENT|trust`: the Claude Code-compatible hooks gg runs (docs/hooks.md).

Every action goes through the daemon (gg/hooks.*): it reads GG_HOME/hooks.json, the `hooks` key
of config.json and the workspace's .gg/hooks.json, and only it records trust.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

NAMES = ("hooks",)
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "Notification",
)


def register(sub: Any) -> None:
    """Add `gg hooks ...`."""
    from ggcli.commands import add_connection_flags

    p = sub.add_parser("hooks", help="hooks: commands gg runs at session, prompt and tool events")
    hsub = p.add_subparsers(dest="action", required=True)
    ls = hsub.add_parser("list", help="the hooks that run in this workspace")
    ls.add_argument("--json", action="store_true")
    test = hsub.add_parser("test", help="run one event's hooks now with sample input")
    test.add_argument("event", choices=EVENTS, metavar="EVENT", help=", ".join(EVENTS))
    test.add_argument("--tool", default="bash", help="tool name for PreToolUse/PostToolUse")
    test.add_argument("--input", help='tool arguments as JSON, e.g. \'{"command": "rm -rf x"}\'')
    test.add_argument("--prompt", default="hello", help="prompt for UserPromptSubmit")
    test.add_argument("--json", action="store_true")
    hsub.add_parser("trust", help="trust this workspace's .gg/hooks.json as it is now")
    for q in hsub.choices.values():
        add_connection_flags(q)


def _print_list(res: dict[str, Any]) -> None:
    hooks = res.get("hooks") or []
    if not hooks:
        print("no hooks configured (GG_HOME/hooks.json, or .gg/hooks.json in the workspace)")
    for h in hooks:
        matcher = h.get("matcher") or "*"
        print(f"{h['event']:<17} {matcher:<16} {h['command']}  ({h['origin']}, {h['timeout']:g} s)")
    if res.get("workspaceFile") == "untrusted":
        n = len(res.get("untrusted") or [])
        print(
            f"this workspace's .gg/hooks.json ({n} hooks) is not trusted, so it does not run: "
            "review it, then run `gg hooks trust`"
        )
    for problem in res.get("errors") or []:
        print(f"config error: {problem}")


def _print_test(res: dict[str, Any]) -> int:
    runs = res.get("runs") or []
    if not runs:
        print("no hook matches this event here")
        return 0
    for r in runs:
        code = "did not finish" if r.get("exitCode") is None else f"exit {r['exitCode']}"
        print(f"{r['command']}: {code}" + (f" ({r['error']})" if r.get("error") else ""))
        for name in ("stdout", "stderr"):
            text = str(r.get(name) or "").rstrip()
            if text:
                print(f"  {name}: " + text.replace("\n", "\n    "))
    if res.get("decision"):
        print(f"decision: {res['decision']}" + (f" — {res['reason']}" if res.get("reason") else ""))
    elif res.get("blocked"):
        print(f"blocked: {res.get('reason')}")
    else:
        print("continues")
    if res.get("context"):
        print("context for the model: " + str(res["context"]))
    return 0


def run(args: argparse.Namespace) -> int:
    """Run one `gg hooks` action against the daemon."""
    from ggcli.commands import connect

    params: dict[str, Any] = {}
    if args.action == "test":
        params = {"event": args.event, "toolName": args.tool, "prompt": args.prompt}
        if args.input:
            try:
                value = json.loads(args.input)
            except ValueError as exc:
                sys.stderr.write(f"gg: error: --input is not JSON: {exc}\n")
                return 2
            if not isinstance(value, dict):
                sys.stderr.write("gg: error: --input must be a JSON object of tool arguments\n")
                return 2
            params["toolInput"] = value
    client = connect(args)
    try:
        if args.action == "list":
            res = client.request("gg/hooks.list", {})
            if args.json:
                print(json.dumps(res, ensure_ascii=False))
            else:
                _print_list(res)
            return 0
        if args.action == "test":
            res = client.request("gg/hooks.test", params, timeout=3700)
            if args.json:
                print(json.dumps(res, ensure_ascii=False))
                return 0
            return _print_test(res)
        res = client.request("gg/hooks.trust", {})
        print(f"trusted this workspace's .gg/hooks.json ({res['hooks']} hooks)")
        return 0
    finally:
        client.close()


__all__ = ["EVENTS", "NAMES", "register", "run"]
