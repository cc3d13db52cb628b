"""`gg undo|redo|diff` and the REPL's /undo, /redo, /diff, /checkout --files: the workspace
checkpoints of a session (docs/checkpoints.md).

A restore is shown before it is made: the preview's files (and conflicts: files changed outside
gg that it would overwrite) are printed and the user is asked; without a terminal to ask,
`--yes` (and `--overwrite` for conflicts) must say it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ggcli.commands import add_connection_flags, connect

NAMES = ("undo", "redo", "diff")

_MARK = {"added": "A", "modified": "M", "deleted": "D", "mode": "T"}

Ask = Callable[[str], bool]


def register(sub: Any) -> None:
    """Add `gg undo`, `gg redo` and `gg diff`."""
    for name, text in (
        ("undo", "restore the files to before the last turn (again: the turn before)"),
        ("redo", "reapply the files the last undo took back"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--session", help="session id (default: the newest of this workspace)")
        p.add_argument("-y", "--yes", action="store_true", help="do not ask before restoring")
        p.add_argument(
            "--overwrite",
            action="store_true",
            help="also overwrite files changed outside gg since the last checkpoint",
        )
        p.add_argument("--preview", action="store_true", help="only show what would change")
        add_connection_flags(p)
    d = sub.add_parser("diff", help="what the last turn (or turn --turn ID) changed")
    d.add_argument("--session", help="session id (default: the newest of this workspace)")
    d.add_argument("--turn", help="the turn's user message id (ids from /tree)")
    d.add_argument("--stat", action="store_true", help="only the list of files")
    add_connection_flags(d)


def run(args: argparse.Namespace) -> int:
    """Run one checkpoint command against a session of this workspace."""
    client = connect(args)
    try:
        sid = args.session or _newest(client)
        if sid is None:
            sys.stderr.write("gg: no sessions in this workspace\n")
            return 1
        if args.command == "diff":
            params: dict[str, Any] = {"sessionId": sid}
            if args.turn:
                params["nodeId"] = args.turn
            show_diff(client.request("gg/session.diff", params), sys.stdout, patch=not args.stat)
            return 0
        ask = _terminal_ask() if not args.yes else (lambda _q: True)
        done = restore(
            client,
            f"gg/session.{args.command}",
            {"sessionId": sid},
            sys.stderr,
            ask,
            preview_only=args.preview,
            overwrite=args.overwrite,
        )
        return 0 if done or args.preview else 1
    finally:
        client.close()


def _newest(client: Any) -> str | None:
    page = client.request("gg/session.list", {"limit": 1}) or {}
    rows = page.get("sessions") or []
    return str(rows[0]["id"]) if rows else None


def _terminal_ask() -> Ask:
    interactive = sys.stdin.isatty() and sys.stderr.isatty()

    def ask(question: str) -> bool:
        if not interactive:
            sys.stderr.write(f"{question} (no terminal to ask: pass --yes)\n")
            return False
        sys.stderr.write(f"{question} [y/N] ")
        sys.stderr.flush()
        try:
            return input().strip().lower() in ("y", "yes")
        except EOFError:
            return False

    return ask


def show_files(res: dict[str, Any], out: TextIO) -> None:
    """One line per file: A/M/D/T, +added -removed, path; then the skipped files."""
    files = res.get("files") or []
    for f in files:
        add, rem = f.get("additions"), f.get("deletions")
        counts = "binary" if add is None else f"+{add} -{rem}"
        out.write(f"  {_MARK.get(f.get('status', ''), '?')} {counts:>12}  {f.get('path')}\n")
    for path in res.get("skipped") or []:
        out.write(f"  (skipped, over the size limit: {path})\n")
    out.flush()


def show_diff(res: dict[str, Any], out: TextIO, *, patch: bool = True) -> None:
    """A turn's diff: its files, then the patch."""
    files = res.get("files") or []
    out.write(f"{len(files)} file(s) changed by turn {res.get('turn')}\n")
    show_files(res, out)
    if patch and res.get("patch"):
        out.write(str(res["patch"]))
        if res.get("truncated"):
            out.write("\n[... patch cut at 200 KB]\n")
    out.flush()


def show_preview(client: Any, method: str, params: dict[str, Any], out: TextIO) -> dict[str, Any]:
    """Ask the daemon what a restore would change and print it (files, then conflicts)."""
    preview = dict(client.request(method, {**params, "preview": True}) or {})
    files = preview.get("files") or []
    out.write(f"{method.rsplit('.', 1)[-1]}: {len(files)} file(s) would change\n")
    show_files(preview, out)
    conflicts = preview.get("conflicts") or []
    if conflicts:
        out.write(f"{len(conflicts)} of them changed outside gg since the last checkpoint:\n")
        for path in conflicts:
            out.write(f"  ! {path}\n")
    out.flush()
    return preview


def restore(
    client: Any,
    method: str,
    params: dict[str, Any],
    out: TextIO,
    ask: Ask,
    *,
    preview_only: bool = False,
    overwrite: bool = False,
) -> bool:
    """Preview a restore (undo, redo, restore), show it, ask, then make it; True when made."""
    verb = method.rsplit(".", 1)[-1]
    preview = show_preview(client, method, params, out)
    files = preview.get("files") or []
    conflicts = preview.get("conflicts") or []
    if preview_only:
        return False
    if files and not ask(f"{verb}: restore these {len(files)} file(s)?"):
        out.write("nothing restored\n")
        return False
    if conflicts and not (overwrite or ask(f"overwrite the {len(conflicts)} changed file(s)?")):
        out.write("nothing restored\n")
        return False
    res = client.request(method, {**params, "confirmConflicts": bool(conflicts)}) or {}
    out.write(f"{verb}: {len(res.get('files') or [])} file(s) restored\n")
    out.flush()
    return True
