"""`gg mcp list|test NAME|add NAME -- CMD ARGS...|remove NAME|trust`: MCP servers gg uses.

Every action goes through the daemon (gg/mcp.*): only ggd reads or writes GG_HOME/mcp.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

NAMES = ("mcp",)


def register(sub: Any) -> None:
    """Add `gg mcp ...`."""
    from ggcli.commands import add_connection_flags

    p = sub.add_parser("mcp", help="MCP servers whose tools gg uses")
    msub = p.add_subparsers(dest="action", required=True)
    ls = msub.add_parser("list", help="configured servers, their state and tools")
    ls.add_argument("--json", action="store_true")
    test = msub.add_parser("test", help="connect to a server now and list its tools")
    test.add_argument("name")
    add = msub.add_parser(
        "add",
        help="add a server to GG_HOME/mcp.json",
        usage="gg mcp add NAME [--env K=V]... [--cwd DIR] -- COMMAND [ARGS...]\n"
        "       gg mcp add NAME --url URL [--header K=V]...",
    )
    add.add_argument("name")
    add.add_argument(
        "--env", action="append", default=[], metavar="K=V", help="server env (${VAR} expands)"
    )
    add.add_argument("--cwd", help="working folder of the server")
    add.add_argument("--url", help="streamable HTTP endpoint instead of a command")
    add.add_argument("--header", action="append", default=[], metavar="K=V", help="HTTP header")
    add.add_argument("argv", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    rm = msub.add_parser("remove", help="remove a server from GG_HOME/mcp.json")
    rm.add_argument("name")
    msub.add_parser("trust", help="trust this workspace's .gg/mcp.json as it is now")
    for q in (ls, test, add, rm, *msub.choices.values()):
        if not any(a.dest == "no_daemon" for a in q._actions):
            add_connection_flags(q)


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{what} expects K=V, got {item!r}")
        out[key] = value
    return out


def _option_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gg mcp add NAME", add_help=False)
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--cwd")
    p.add_argument("--url")
    p.add_argument("--header", action="append", default=[])
    return p


def _split(argv: list[str]) -> tuple[list[str], list[str]]:
    """(options, command) of what follows NAME: options end at `--` (or are all when none)."""
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1 :]
    if argv and argv[0].startswith("-"):
        return argv, []
    return [], argv


def _add_params(args: argparse.Namespace) -> dict[str, Any]:
    opts, argv = _split(list(args.argv))
    extra, unknown = _option_parser().parse_known_args(opts)
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (the command goes after --)")
    env = [*args.env, *extra.env]
    headers = [*args.header, *extra.header]
    url, cwd = extra.url or args.url, extra.cwd or args.cwd
    params: dict[str, Any] = {"name": args.name}
    if url:
        if argv:
            raise ValueError("give either --url or -- COMMAND, not both")
        params["url"] = url
        if headers:
            params["headers"] = _pairs(headers, "--header")
        return params
    if not argv:
        raise ValueError(
            "give the server's command after --, e.g. gg mcp add time -- uvx mcp-server-time"
        )
    params["command"], params["args"] = argv[0], argv[1:]
    if env:
        params["env"] = _pairs(env, "--env")
    if cwd:
        params["cwd"] = cwd
    return params


def _print_list(res: dict[str, Any]) -> None:
    servers = res.get("servers") or []
    if not servers:
        print("no MCP servers configured (gg mcp add NAME -- COMMAND ARGS...)")
    for s in servers:
        line = f"{s['name']:<20} {s['state']:<10} {s['transport']:<5} {s['origin']}"
        if s.get("tools"):
            line += f"  tools: {', '.join(s['tools'])}"
        print(line)
        if s.get("lastError"):
            print(f"{'':<20} error: {s['lastError']}")
    if res.get("workspaceFile") == "untrusted":
        print("this workspace's .gg/mcp.json is not trusted: review it, then run `gg mcp trust`")
    if res.get("configError"):
        print(f"config error: {res['configError']}")


def run(args: argparse.Namespace) -> int:
    """Run one `gg mcp` action against the daemon."""
    from ggcli.commands import connect

    try:
        params = _add_params(args) if args.action == "add" else None
    except ValueError as exc:
        sys.stderr.write(f"gg: error: {exc}\n")
        return 2
    client = connect(args)
    try:
        if args.action == "list":
            res = client.request("gg/mcp.list", {})
            if args.json:
                print(json.dumps(res, ensure_ascii=False))
            else:
                _print_list(res)
            return 0
        if args.action == "test":
            res = client.request("gg/mcp.test", {"server": args.name}, timeout=180)
            if res.get("ok"):
                print(f"{args.name}: ok in {res['elapsedMs']} ms; tools: {', '.join(res['tools'])}")
                return 0
            sys.stderr.write(f"gg: {args.name}: {res.get('error')}\n")
            return 1
        if args.action == "add":
            res = client.request("gg/mcp.add", params)
            print(f"{'replaced' if res.get('replaced') else 'added'} MCP server {args.name}")
            return 0
        if args.action == "remove":
            res = client.request("gg/mcp.remove", {"server": args.name})
            if not res.get("removed"):
                sys.stderr.write(f"gg: error: no MCP server {args.name!r} in GG_HOME/mcp.json\n")
                return 1
            print(f"removed MCP server {args.name}")
            return 0
        res = client.request("gg/mcp.trust", {})
        print(
            f"trusted this workspace's .gg/mcp.json: {', '.join(res['servers']) or '(no servers)'}"
        )
        return 0
    finally:
        client.close()


__all__ = ["NAMES", "register", "run"]
