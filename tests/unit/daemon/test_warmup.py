"""The quiet-moment warm-up: what the first run would build is built while nobody waits."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ggd.app import CapabilityRegistry, SetupContext
from ggd.daemon import warmup
from ggd.protocol.base import Event, Params
from ggd.protocol.methods import BY_NAME
from ggd.rpc.handlers import CAPABILITY as CORE_METHODS


def _table() -> CapabilityRegistry:
    table = CapabilityRegistry((), SetupContext(home=Path("."), config=None, env={}))
    table.register(CORE_METHODS, first=True)
    return table


@dataclass
class Core:
    registry: CapabilityRegistry = field(default_factory=_table)


@dataclass
class Runs:
    active: int = 0

    def active_count(self) -> int:
        return self.active


@dataclass
class FakeHub:
    """What warm-up reads of the hub: the run table, the last activity and the method rows."""

    runs: Runs = field(default_factory=Runs)
    last_activity: float = field(default_factory=time.monotonic)
    core: Core = field(default_factory=Core)


def _fresh_models() -> tuple[type[Params], type[Event]]:
    """Two wire models made now, so no earlier test has built them."""

    class ProbeParams(Params):
        path: str
        limit: int = 10

    class ProbeEvent(Event):
        run_id: str
        text: str

    return ProbeParams, ProbeEvent


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warmup, "QUIET_S", 0.05)


def test_a_quiet_daemon_builds_the_deferred_wire_models_and_the_params_adapters(
    quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    params, event = _fresh_models()
    assert not params.__pydantic_complete__ and not event.__pydantic_complete__
    hub = FakeHub(last_activity=time.monotonic() - 1)

    done = asyncio.run(warmup.warm_when_quiet(hub))  # type: ignore[arg-type]

    assert params.__pydantic_complete__ and event.__pydantic_complete__
    # The models work as built: the strict params still reject a loose type.
    assert params.model_validate({"path": "a"}).limit == 10
    with pytest.raises(ValueError):
        params.model_validate({"path": "a", "limit": "10"})
    assert event(run_id="r", text="t").wire() == {"runId": "r", "text": "t"}
    # Every core client request row has its params adapter, as its first call would make it.
    rows = [s.name for s in BY_NAME.values() if s.kind == "request" and s.direction == "client"]
    routes = [hub.core.registry.route(r) for r in rows]
    assert all(r is not None and r._adapter is not None for r in routes)
    # ... built, not deferred to that call (pydantic >= 2.10 says so).
    assert all(getattr(r.adapter(), "pydantic_complete", True) for r in routes if r)
    assert done >= len(rows) + 2


def test_nothing_is_built_while_a_run_is_active(quick: None) -> None:
    params, _ = _fresh_models()
    hub = FakeHub(runs=Runs(active=1), last_activity=time.monotonic() - 1)

    async def scenario() -> None:
        task = asyncio.create_task(warmup.warm_when_quiet(hub))  # type: ignore[arg-type]
        await asyncio.sleep(0.3)  # six quiet spans: a run is active all along
        assert not params.__pydantic_complete__
        hub.runs.active = 0  # the run ended
        await asyncio.wait_for(task, 10)
        assert params.__pydantic_complete__

    asyncio.run(scenario())


def test_a_connection_opened_moments_ago_defers_the_builds() -> None:
    now = time.monotonic()
    hub = FakeHub(last_activity=now - 0.1)
    assert warmup.until_quiet(hub, now) == pytest.approx(warmup.QUIET_S - 0.1)  # type: ignore[arg-type]
    assert warmup.until_quiet(FakeHub(last_activity=now - 2), now) == 0  # type: ignore[arg-type]
    busy = FakeHub(runs=Runs(active=2), last_activity=now - 2)
    assert warmup.until_quiet(busy, now) == warmup.QUIET_S  # type: ignore[arg-type]


def test_a_model_that_cannot_build_is_left_for_its_first_use(quick: None) -> None:
    class Broken(Params):
        later: Missing  # type: ignore[name-defined]  # noqa: F821

    params, _ = _fresh_models()
    asyncio.run(warmup.warm_when_quiet(FakeHub(last_activity=0.0)))  # type: ignore[arg-type]
    assert not Broken.__pydantic_complete__  # its step failed quietly ...
    assert params.__pydantic_complete__  # ... and the later steps still ran
