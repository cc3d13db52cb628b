"""`gg artifact list|show|publish|remove` and `gg library add|list|remove|path`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

NAMES = ("artifact", "library")


def register(sub: Any) -> None:
    """Add the artifact and library subparsers."""
    from ggcli.commands import add_connection_flags

    a = sub.add_parser("artifact", help="artifacts the agent wrote (versioned documents)")
    asub = a.add_subparsers(dest="action", required=True)
    ls = asub.add_parser("list", help="list artifacts, most recently updated first")
    ls.add_argument("--json", action="store_true")
    show = asub.add_parser("show", help="print an artifact's content (the latest version)")
    show.add_argument("id")
    show.add_argument("--version", type=int, help="an earlier version")
    show.add_argument("--json", action="store_true")
    pub = asub.add_parser("publish", help="copy the latest version into the library")
    pub.add_argument("id")
    rm = asub.add_parser("remove", help="delete an artifact and its versions")
    rm.add_argument("id")
    for p in (ls, show, pub, rm):
        add_connection_flags(p)

    lib = sub.add_parser("library", help="your files, kept by ggd")
    lsub = lib.add_subparsers(dest="action", required=True)
    add = lsub.add_parser("add", help="copy a file into the library (at most 50 MiB)")
    add.add_argument("path", type=Path)
    add.add_argument("--name", help="the name in the library (default: the file's name)")
    lls = lsub.add_parser("list", help="list library files")
    lls.add_argument("--json", action="store_true")
    lrm = lsub.add_parser("remove", help="remove a file from the library")
    lrm.add_argument("id")
    lpath = lsub.add_parser("path", help="print the library folder, or one item's file")
    lpath.add_argument("id", nargs="?")
    for p in (add, lls, lrm, lpath):
        add_connection_flags(p)


def run(args: argparse.Namespace) -> int:
    """Run one artifact or library command against the daemon."""
    from ggcli.commands import connect

    client = connect(args)
    try:
        if args.command == "artifact":
            return _artifact(client, args)
        return _library(client, args)
    finally:
        client.close()


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


def _artifact(client: Any, args: argparse.Namespace) -> int:
    if args.action == "list":
        arts = client.request("gg/artifact.list", {})["artifacts"]
        if args.json:
            print(json.dumps(arts, ensure_ascii=False))
        elif not arts:
            print("no artifacts yet")
        for a in [] if args.json else arts:
            pub = f"published v{a['publishedVersion']}" if a["publishedVersion"] else "unpublished"
            print(f"{a['id']}  v{a['version']:<3} {a['type']:<8} {pub:<14} {a['title']}")
        return 0
    if args.action == "show":
        params: dict[str, Any] = {"artifactId": args.id}
        if args.version:
            params["version"] = args.version
        view = client.request("gg/artifact.get", params)
        if args.json:
            print(json.dumps(view, ensure_ascii=False))
        else:
            sys.stdout.write(view["content"])
            if not view["content"].endswith("\n"):
                sys.stdout.write("\n")
        return 0
    if args.action == "publish":
        res = client.request("gg/artifact.publish", {"artifactId": args.id})
        a, item = res["artifact"], res["item"]
        print(f"published {a['id']} v{a['publishedVersion']} as {item['name']} ({item['id']})")
        return 0
    client.request("gg/artifact.remove", {"artifactId": args.id})
    print(f"removed {args.id}")
    return 0


def _library(client: Any, args: argparse.Namespace) -> int:
    if args.action == "add":
        path = args.path.expanduser().resolve()
        params = {"path": str(path), **({"name": args.name} if args.name else {})}
        item = client.request("gg/library.add", params, timeout=300)["item"]
        print(f"added {item['name']} ({item['id']}, {_size(item['size'])})")
        return 0
    if args.action == "remove":
        client.request("gg/library.remove", {"itemId": args.id})
        print(f"removed {args.id}")
        return 0
    listing = client.request("gg/library.list", {})
    items = listing["items"]
    if args.action == "path":
        folder = listing.get("path")
        if not folder:
            sys.stderr.write("gg: error: the daemon did not share its library folder\n")
            return 1
        if args.id is None:
            print(folder)
            return 0
        match = [i for i in items if i["id"] == args.id]
        if not match:
            sys.stderr.write(f"gg: error: no library item {args.id!r}; see gg library list\n")
            return 1
        print(str(Path(folder) / match[0]["name"]))
        return 0
    if args.json:
        print(json.dumps(items, ensure_ascii=False))
        return 0
    if not items:
        print("the library is empty")
    for i in items:
        print(f"{i['id']}  {_size(i['size']):>10}  {i['source']:<22} {i['name']}")
    return 0
