"""Fixtures for the session store tests: a temp GG_HOME and a repository with a fixed clock."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ggd.session import SessionRepository


class StepClock:
    """A clock that ticks 1 ms per call, so timestamps are distinct and predictable."""

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self._it = itertools.count(start)

    def __call__(self) -> int:
        return next(self._it)


@pytest.fixture
def gg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private GG_HOME for this test."""
    home = tmp_path / "gg-home"
    monkeypatch.setenv("GG_HOME", str(home))
    return home


@pytest.fixture
def make_repo(gg_home: Path) -> Iterator[Callable[..., SessionRepository]]:
    """Factory: a repository under GG_HOME/sessions (several may share the root)."""

    def make(clock: Callable[[], int] | None = None, **kw: float) -> SessionRepository:
        return SessionRepository(gg_home / "sessions", clock=clock or StepClock(), **kw)

    yield make


@pytest.fixture
def repo(make_repo: Callable[..., SessionRepository]) -> SessionRepository:
    """A repository under GG_HOME/sessions with a step clock."""
    return make_repo()


def user(text: str) -> dict[str, object]:
    """A protocol user Message."""
    return {"role": "user", "content": text, "timestamp": 1}


def assistant(text: str) -> dict[str, object]:
    """A protocol assistant Message."""
    return {"role": "assistant", "content": text, "timestamp": 2}
