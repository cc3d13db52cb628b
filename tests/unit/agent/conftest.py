"""Shared fixtures for the agent tests: a private GG_HOME per test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def gg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own GG_HOME."""
    home = tmp_path / "gg_home"
    home.mkdir()
    monkeypatch.setenv("GG_HOME", str(home))
    return home
