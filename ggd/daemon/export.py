"""`python -m ggd.daemon.export protocol`: regenerate protocol/ from the full method table.

The full table is the core rows of `ggd.protocol.methods` followed by every shipped capability's
rows (from the catalog), so the generated schema, TypeScript and spec cover them all; the error
table likewise is the core's errors and every shipped capability's own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ggd.protocol import MethodSpec
from ggd.protocol.errors import GgError, error_table
from ggd.protocol.export import check, write
from ggd.protocol.methods import METHODS

from .catalog import builtin

COMMAND = "python -m ggd.daemon.export protocol"


def full_table() -> tuple[MethodSpec, ...]:
    """Core rows, then each shipped capability's rows; a duplicate name is a bug."""
    rows = [*METHODS, *(spec for cap in builtin() for spec in cap.methods)]
    names = [r.name for r in rows]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"duplicate method rows: {dupes}")
    return tuple(rows)


def full_errors() -> tuple[type[GgError], ...]:
    """The core's errors and each shipped capability's own, in wire-table order."""
    return error_table(e for cap in builtin() for e in cap.errors)


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    ap = argparse.ArgumentParser(prog="python -m ggd.daemon.export")
    ap.add_argument("out", type=Path, nargs="?", default=Path("protocol"))
    ap.add_argument("--check", action="store_true")
    ns = ap.parse_args(argv)
    table = full_table()
    if ns.check:
        problems = check(ns.out, table, full_errors())
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            print(f"protocol/ is stale: run `{COMMAND}`", file=sys.stderr)
        return 1 if problems else 0
    write(ns.out, table, full_errors())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
