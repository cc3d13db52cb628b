"""One layout for every capability package: its declaration in `__init__.py`, its own names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from ggd.app import DeferredHandlers, DeferredRows
from ggd.daemon.catalog import builtin

PACKAGES = Path(__file__).resolve().parents[3] / "ggd" / "capabilities"


def _packages() -> list[Path]:
    return sorted(p for p in PACKAGES.iterdir() if (p / "__init__.py").is_file())


def _assigns_capability(init: Path) -> bool:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "CAPABILITY" for t in node.targets)
        for node in tree.body
    )


def test_every_capability_is_declared_in_its_package_init() -> None:
    packages = _packages()
    assert len(packages) >= 11
    misplaced = [p.name for p in packages if not _assigns_capability(p / "__init__.py")]
    assert misplaced == [], f"CAPABILITY not assigned in __init__.py of {misplaced}"
    for pkg in packages:
        module = importlib.import_module(f"ggd.capabilities.{pkg.name}")
        for name in ("provider", "handlers", "protocol"):
            part = pkg / f"{name}.py"
            if part.is_file():
                assert "CAPABILITY =" not in part.read_text(encoding="utf-8"), part
        assert module.CAPABILITY in builtin(), pkg.name


def test_deferred_parts_name_their_own_package() -> None:
    for cap in builtin():
        for part in (cap.methods, cap.handlers):
            if isinstance(part, DeferredRows | DeferredHandlers):
                assert part.ref.startswith(f"ggd.capabilities.{cap.name}."), (cap.name, part.ref)
