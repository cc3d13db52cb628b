"""The core's shape in four figures: functions over 60 lines, uses of `Any`, lines, duplicates.

`python bench/shape_metrics.py [--long] [ROOT]` prints them for ggd/ (issue 31's figures):
functions (and methods) whose `def` to last line spans more than 60 lines, `Any` names in
annotations and code (`typing.Any` and `Any`), physical lines of the .py files, and the pairs
the `duplicates` tool lists for the folder when it is installed. Reads files only.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

LIMIT = 60
ROOT = Path(__file__).resolve().parents[1]


def _long_in(node: ast.AST, where: str, out: list[tuple[str, int]]) -> None:
    """Add `where:name` for each function under `node` longer than LIMIT lines."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            size = (child.end_lineno or child.lineno) - child.lineno + 1
            if size > LIMIT:
                out.append((f"{where}{child.name}", size))
            _long_in(child, f"{where}{child.name}.", out)
        elif isinstance(child, ast.ClassDef):
            _long_in(child, f"{where}{child.name}.", out)


def long_functions(tree: Path) -> list[tuple[str, int]]:
    """(path:qualified name, lines) of every function longer than LIMIT lines, longest first."""
    out: list[tuple[str, int]] = []
    for py in sorted(tree.rglob("*.py")):
        module = ast.parse(py.read_text(encoding="utf-8"))
        _long_in(module, f"{py.relative_to(tree.parent)}:", out)
    return sorted(out, key=lambda item: -item[1])


def any_uses(tree: Path) -> int:
    """`Any` names (a bare `Any` or `typing.Any`), strings of annotations included."""
    count = 0
    for py in tree.rglob("*.py"):
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and node.id == "Any":
                count += 1
            elif isinstance(node, ast.Attribute) and node.attr == "Any":
                count += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # a quoted annotation ("dict[str, Any]"); docstrings rarely say Any as a word
                count += (
                    len(re.findall(r"(?<![\w.])Any(?!\w)", node.value)) if "[" in node.value else 0
                )
    return count


def lines(tree: Path) -> int:
    """Physical lines of the tree's .py files."""
    return sum(len(py.read_text(encoding="utf-8").splitlines()) for py in tree.rglob("*.py"))


def duplicate_pairs(tree: Path) -> int | None:
    """How many pairs the `duplicates` tool lists for the tree (None when it is not installed)."""
    tool = shutil.which("duplicates")
    if tool is None:
        return None
    out = subprocess.run(
        [tool, "--repo", str(tree), "--most", "200", "--seconds", "120"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    found = re.search(r"(\d+) pairs?", out)
    return int(found.group(1)) if found else None


def main(argv: list[str] | None = None) -> int:
    """Print the figures (and, with --long, every long function)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path, nargs="?", default=ROOT / "ggd")
    ap.add_argument("--long", action="store_true", help="list the functions over the limit")
    ap.add_argument("--no-duplicates", action="store_true", help="skip the duplicates tool")
    ns = ap.parse_args(argv)
    found = long_functions(ns.root)
    if ns.long:
        for name, size in found:
            print(f"{size:4d}  {name}")
    print(f"functions over {LIMIT} lines: {len(found)}")
    print(f"uses of Any: {any_uses(ns.root)}")
    print(f"lines: {lines(ns.root)}")
    if not ns.no_duplicates:
        print(f"duplicates pairs: {duplicate_pairs(ns.root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
