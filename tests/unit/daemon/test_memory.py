"""The daemon's memory policy: the session layer marks bulk loads, the daemon decides for gc."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

import pytest

from ggd.daemon import memory
from ggd.session import codec


@pytest.fixture
def policy() -> Iterator[None]:
    yield
    codec.set_bulk_policy(contextlib.nullcontext)


def test_without_the_daemon_a_bulk_load_leaves_the_collector_alone(policy: None) -> None:
    codec.set_bulk_policy(contextlib.nullcontext)
    assert gc.isenabled()
    with codec.bulk_allocation():
        assert gc.isenabled()


def test_the_daemon_s_policy_pauses_the_collector_for_a_bulk_load(policy: None) -> None:
    memory.install()
    assert gc.isenabled()
    with codec.bulk_allocation():
        assert not gc.isenabled()
        with codec.bulk_allocation():  # nested loads keep it off until the outer one ends
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_session_and_app_layers_hold_no_gc_policy_of_their_own() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "ggd"
    for pkg in ("session", "app", "agent", "rpc", "transport"):
        for py in (root / pkg).rglob("*.py"):
            assert "import gc" not in py.read_text(encoding="utf-8"), py
