"""Shared fixtures for the ggcli unit tests: a private GG_HOME per test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def gg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own GG_HOME (some spawn gg, which inherits it)."""
    home = tmp_path / "gg_home"
    monkeypatch.setenv("GG_HOME", str(home))
    return home
