"""Fixtures for ggd.tools tests: a temp GG_HOME, HOME, workspace and ToolContext."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggd.tools import ToolContext


@pytest.fixture(autouse=True)
def gg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own GG_HOME and HOME (so `~` never means the real home)."""
    home = tmp_path / "gghome"
    home.mkdir()
    user_home = tmp_path / "home"
    user_home.mkdir()
    monkeypatch.setenv("GG_HOME", str(home))
    monkeypatch.setenv("HOME", str(user_home))
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def ctx(ws: Path, gg_home: Path) -> ToolContext:
    """A ToolContext on the workspace with logs under GG_HOME."""
    return ToolContext(workspace=ws, log_dir=gg_home / "logs", run_id="run1")
