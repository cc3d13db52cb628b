"""ARCHITECTURE.md's dependency direction, checked on the import statements of every module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# package -> ggd packages it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "protocol": set(),
    "session": set(),
    "tools": set(),
    "providers": set(),
    "agent": {"tools", "providers"},
    "app": {"protocol", "agent", "session", "tools", "providers"},
    "rpc": {"protocol", "app"},
    "transport": {"protocol", "rpc"},
    "daemon": {"protocol", "app", "rpc", "transport", "providers", "session", "tools", "agent"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkgs: set[str] = set()
    # the package parts of this module, e.g. ("rpc", "handlers") for ggd/rpc/handlers/x.py
    here = path.relative_to(ROOT / "ggd").parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("ggd."):
                    pkgs.add(a.name.split(".")[1])
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and node.module.startswith("ggd."):
                pkgs.add(node.module.split(".")[1])
            elif node.level >= 1:
                base = here[: len(here) - (node.level - 1)]
                full = [*base, *(node.module.split(".") if node.module else [])]
                if full:
                    pkgs.add(full[0])
    return pkgs


def test_ggd_packages_respect_the_dependency_direction() -> None:
    problems = []
    for pkg, allowed in ALLOWED.items():
        for py in (ROOT / "ggd" / pkg).rglob("*.py"):
            bad = _imports(py) - allowed - {pkg}
            if bad:
                problems.append(f"{py.relative_to(ROOT)} imports {sorted(bad)}")
    assert not problems, "\n".join(problems)


def test_the_cli_imports_nothing_of_ggd_or_heavy_libraries() -> None:
    heavy = {"ggd", "pygls", "lsprotocol", "httpx", "pydantic", "mcp", "websockets"}
    problems = []
    for py in (ROOT / "ggcli").rglob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for n in names:
                if n.split(".")[0] in heavy:
                    problems.append(f"{py.relative_to(ROOT)} imports {n}")
    assert not problems, "\n".join(problems)


def test_every_package_declares_its_purpose_and_surface() -> None:
    for init in (ROOT / "ggd").glob("*/__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{init.relative_to(ROOT)} has no purpose docstring"
