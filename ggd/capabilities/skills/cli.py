"""`gg skills list` (the /skill:<name> expansion of a prompt is the CLI's own: ggcli/expand.py)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ggcli.commands import add_connection_flags, connect

NAMES = ("skills",)


def register(sub: Any) -> None:
    """Add `skills list`."""
    s = sub.add_parser("skills", help="skills of this workspace (.agents/skills)")
    ssub = s.add_subparsers(dest="action", required=True)
    ls = ssub.add_parser("list", help="list skills, nearest first, and the ones skipped")
    ls.add_argument("--json", action="store_true")
    add_connection_flags(ls)


def run(args: argparse.Namespace) -> int:
    """Run `gg skills list`."""
    client = connect(args)
    try:
        result = client.request("gg/skill.list", {}) or {}
    finally:
        client.close()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    skills = result.get("skills") or []
    for s in skills:
        hidden = "" if s.get("modelInvocable") else "  [only with /skill:]"
        print(f"{s['name']}  ({s['root']}: {s['folder']}){hidden}\n    {s['description']}")
    if not skills:
        print("no skills (add .agents/skills/<name>/SKILL.md)")
    for w in result.get("warnings") or []:
        print(f"warning: {w}")
    return 0
