"""The grep tool's pure-Python search, run as a child process (stdlib only, no ggd imports).

Python's `re` backtracks: a pattern such as `(a+)+$` can run for minutes while holding the
GIL, so neither a thread nor asyncio can interrupt it inside the daemon. The tool runs this
script with `python -I` and kills it on timeout or cancel. Request on stdin, reply on stdout,
both one JSON object:

    in:  {"pattern", "literal", "target", "workspace", "limit", "maxText", "sniff"}
    out: {"lines": [...], "more": bool, "linked": int}   or   {"error": "..."}
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any


def _relative(p: Path, ws: Path) -> str:
    try:
        return p.relative_to(ws).as_posix() or "."
    except ValueError:
        return str(p)


def _line(rel: str, number: int, text: str, max_text: int) -> str:
    text = text.rstrip("\r\n")
    if len(text) > max_text:
        text = text[:max_text] + " [truncated]"
    return f"{rel}:{number}:{text}"


def search(req: dict[str, Any]) -> dict[str, Any]:
    """Search like `rg --sort=path`; files with several hard links are skipped and counted."""
    pattern = str(req["pattern"])
    try:
        rx = re.compile(re.escape(pattern) if req.get("literal") else pattern)
    except re.error as exc:
        return {"error": f"grep failed: invalid regex: {exc}"}
    ws, target = Path(req["workspace"]), Path(req["target"])
    limit, max_text, sniff = int(req["limit"]), int(req["maxText"]), int(req["sniff"])
    files: list[tuple[str, Path]] = []
    if target.is_file():
        files.append((_relative(target, ws), target))
    else:
        for root, dirs, names in os.walk(target):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in names:
                p = Path(root) / name
                if not p.is_symlink():
                    files.append((_relative(p, ws), p))
    files.sort(key=lambda item: item[0].split("/"))  # directory order, like rg --sort=path
    lines: list[str] = []
    linked = 0
    for rel, p in files:
        try:
            with open(p, "rb") as fh:
                st = os.fstat(fh.fileno())
                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                    linked += 1  # may be the same inode as a file outside the workspace
                    continue
                data = fh.read()
        except OSError:
            continue
        if b"\x00" in data[:sniff]:
            continue
        for number, text in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if rx.search(text):
                if len(lines) == limit:
                    return {"lines": lines, "more": True, "linked": linked}
                lines.append(_line(rel, number, text, max_text))
    return {"lines": lines, "more": False, "linked": linked}


def main() -> None:
    """Read one request from stdin, write one reply to stdout."""
    reply = search(json.loads(sys.stdin.buffer.read()))
    sys.stdout.write(json.dumps(reply))


if __name__ == "__main__":
    main()
