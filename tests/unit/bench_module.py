"""Load a bench/ script as a module, for the tests of the benches' own logic."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench(filename: str, module_name: str) -> ModuleType:
    """bench/<filename> imported under module_name (the benches are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(module_name, BENCH / filename)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = mod
    spec.loader.exec_module(mod)
    return mod
