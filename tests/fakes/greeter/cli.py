"""`gg greet NAME`: the worked example's command line, in the capability's own folder.

The `gg` CLI finds this file through the catalog line (GG_CAPABILITIES_EXTRA=tests.fakes.greeter
here, ggd/capabilities/<name>/ in tree) and loads it without importing ggd: stdlib and ggcli only.
"""

from __future__ import annotations

import argparse
from typing import Any

from ggcli.commands import add_connection_flags, connect

NAMES = ("greet",)


def register(sub: Any) -> None:
    """Add `gg greet NAME`."""
    p = sub.add_parser("greet", help="greet someone by name (the extending example)")
    p.add_argument("name")
    add_connection_flags(p)


def run(args: argparse.Namespace) -> int:
    """Ask the daemon to greet, through the protocol like every command."""
    client = connect(args)
    try:
        result = client.request("gg/greeter.greet", {"name": args.name}) or {}
    finally:
        client.close()
    print(f"{result['text']} (greeting #{result['count']} of this daemon)")
    return 0
