"""`gg browser read URL` and `gg browser shot URL`: one page, through the daemon's guarded browser."""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path
from typing import Any

from ggcli.commands import add_connection_flags, connect

NAMES = ("browser",)


def register(sub: Any) -> None:
    """Add `gg browser ...`."""
    p = sub.add_parser("browser", help="read or screenshot a public web page")
    bsub = p.add_subparsers(dest="action", required=True)
    read = bsub.add_parser("read", help="print a page's title, URL and visible text")
    read.add_argument("url")
    shot = bsub.add_parser("shot", help="save a PNG screenshot of a page")
    shot.add_argument("url")
    shot.add_argument("-o", "--output", type=Path, help="file to write (default gg-<id>.png)")
    for q in (read, shot):
        add_connection_flags(q)


def run(args: argparse.Namespace) -> int:
    """Run one browser command."""
    client = connect(args)
    try:
        if args.action == "read":
            page = client.request("gg/browser.read", {"url": args.url}, timeout=120)
            print(f"# {page['title']}\n{page['url']}\n\n{page['text']}")
            return 0
        shot = client.request("gg/browser.shot", {"url": args.url}, timeout=120)
        got = client.request("gg/media.get", {"mediaId": shot["mediaId"]})
    finally:
        client.close()
    out = args.output or Path(f"gg-{shot['mediaId']}.png")
    out.write_bytes(base64.b64decode(got["data"]))
    sys.stderr.write(f"wrote {out} ({got['size']} bytes) of {shot['url']}\n")
    return 0
