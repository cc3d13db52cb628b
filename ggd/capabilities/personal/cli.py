"""`gg memory show|search|add` and `gg init`: the personal layer from the command line.

Everything goes through the daemon (gg/memory.*): only ggd touches the profile and memory files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ggcli.commands import add_connection_flags, connect

NAMES = ("memory", "init")

# The USER.md keys gg init fills, as (label, flag attribute, gg/memory.init param).
FIELDS = (
    ("Name", "name", "name"),
    ("Call me", "call_me", "callMe"),
    ("Timezone", "timezone", "timezone"),
    ("Language", "language", "language"),
)
_LANGUAGES = {
    "de": "German", "en": "English", "es": "Spanish", "fr": "French", "it": "Italian",
    "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "pl": "Polish", "pt": "Portuguese",
    "ru": "Russian", "sv": "Swedish", "tr": "Turkish", "uk": "Ukrainian", "zh": "Chinese",
}  # fmt: skip


def register(sub: Any) -> None:
    """Add `memory` (show, search, add) and `init`."""
    m = sub.add_parser("memory", help="show, search or add to what gg remembers")
    msub = m.add_subparsers(dest="action", required=True)
    show = msub.add_parser("show", help="print the profile, MEMORY.md and today's log")
    search = msub.add_parser("search", help="keyword search across every memory file")
    search.add_argument("query", nargs="+", metavar="QUERY")
    search.add_argument("--limit", type=int, default=10)
    add = msub.add_parser("add", help="remember something")
    add.add_argument("text", nargs="+", metavar="TEXT")
    add.add_argument(
        "--scope", default="general", help="general, daily, person:<name> or group:<name>"
    )
    for p in (show, search, add):
        p.add_argument("--json", action="store_true", help="print the daemon's result as JSON")
        add_connection_flags(p)
    init = sub.add_parser("init", help="write your profile (GG_HOME/USER.md)")
    for label, attr, _param in FIELDS:
        init.add_argument("--" + attr.replace("_", "-"), dest=attr, metavar=label.upper())
    init.add_argument("--force", action="store_true", help="replace an existing USER.md")
    add_connection_flags(init)


def run(args: argparse.Namespace) -> int:
    """Run one memory command."""
    client = connect(args)
    try:
        if args.command == "init":
            return _init(client, args)
        if args.action == "show":
            return _show(client.request("gg/memory.show", {}), args.json)
        if args.action == "search":
            params = {"query": " ".join(args.query), "limit": args.limit}
            return _search(client.request("gg/memory.search", params), args.json)
        params = {"content": " ".join(args.text), "scope": args.scope}
        result = client.request("gg/memory.add", params)
        print(json.dumps(result) if args.json else f"remembered in {result['path']}")
        return 0
    finally:
        client.close()


def _show(result: dict[str, Any], as_json: bool) -> int:
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    if result.get("profileProblem"):
        print(f"# Profile (USER.md): ignored, {result['profileProblem']}\n")
    elif result.get("profile"):
        print("# Profile (USER.md)\n\n" + str(result["profile"]).strip() + "\n")
    else:
        print("# Profile (USER.md): none yet (gg init writes one)\n")
    if not result.get("enabled"):
        print("Memory is off (memory.enabled in config.json).")
        return 0
    print("# MEMORY.md\n\n" + (str(result.get("memory") or "").strip() or "(empty)") + "\n")
    today = str(result.get("today") or "").strip() or "(nothing yet)"
    print(f"# Today ({result.get('todayDate')})\n\n{today}")
    return 0


def _search(result: dict[str, Any], as_json: bool) -> int:
    hits = result.get("hits") or []
    if as_json:
        print(json.dumps(hits, ensure_ascii=False))
    for h in [] if as_json else hits:
        print(f"{h['path']}:{h['line']}: {h['text']}")
    if not hits and not as_json:
        print("no memories match", file=sys.stderr)
    return 0 if hits else 1


def _init(client: Any, args: argparse.Namespace) -> int:
    values = {attr: getattr(args, attr) for _label, attr, _param in FIELDS}
    if _isatty(sys.stdin) and _isatty(sys.stdout):
        shown = client.request("gg/memory.show", {}) or {}
        if shown.get("profileExists") and not args.force:
            print("gg: USER.md already exists; edit it, or run gg init --force", file=sys.stderr)
            return 1
        values = _ask(values)
    params: dict[str, Any] = {param: values[attr] or None for _l, attr, param in FIELDS}
    params["force"] = bool(args.force)
    result = client.request("gg/memory.init", params)
    from ggcli.discovery import gg_home

    print(f"wrote {gg_home() / result['path']}")
    if result.get("empty"):
        print("left empty: " + ", ".join(result["empty"]) + " (edit the file to fill them in)")
    print("It is sent to the model at every turn; keep secrets out of it.")
    return 0


def _ask(values: dict[str, str | None]) -> dict[str, str | None]:
    """Ask for each field the flags did not give, offering a default (Enter keeps it)."""
    defaults = _defaults()
    out = dict(values)
    for label, attr, _param in FIELDS:
        if out.get(attr):
            continue
        if attr == "call_me" and out.get("name"):
            defaults[attr] = str(out["name"]).split()[0]
        default = defaults.get(attr, "")
        hint = f" [{default}]" if default else ""
        answer = input(f"{label}{hint}: ").strip()
        out[attr] = answer or default
    return out


def _defaults() -> dict[str, str]:
    """Guesses from this machine: the account's full name, TZ or /etc/localtime, LANG."""
    out: dict[str, str] = {}
    try:
        import pwd

        gecos = pwd.getpwuid(os.getuid()).pw_gecos.split(",")[0].strip()
        out["name"] = gecos or pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError, OSError):
        pass
    if out.get("name"):
        out["call_me"] = out["name"].split()[0]
    tz = os.environ.get("TZ", "").lstrip(":")
    if not tz:
        try:
            tz = os.readlink("/etc/localtime").split("zoneinfo/", 1)[-1]
        except OSError:
            tz = ""
    if tz:
        out["timezone"] = tz
    lang = (os.environ.get("LC_ALL") or os.environ.get("LANG") or "").split("_")[0].split(".")[0]
    out["language"] = _LANGUAGES.get(lang.lower(), "English")
    return out


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
