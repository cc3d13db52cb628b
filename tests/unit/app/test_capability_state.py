"""A capability's per-daemon state: made by the registry from its declaration, once, per daemon."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ggd.app import Capability, CapabilityRegistry, HandlerContext, SetupContext, StateContext
from ggd.protocol import MethodSpec
from ggd.protocol.base import Params, Result


class PingParams(Params):
    """No fields."""


class PingResult(Result):
    """The count."""

    n: int


PING = MethodSpec("gg/ping.ping", "Ping.", PingParams, PingResult)


class Counter:
    def __init__(self, home: Path, services: object) -> None:
        self.home = home
        self.services = services
        self.n = 0


made: list[Counter] = []


def _state(ctx: StateContext) -> Counter:
    got = Counter(ctx.home, ctx.services)
    made.append(got)
    return got


async def ping(ctx: HandlerContext, params: PingParams) -> PingResult:
    counter = ctx.state(Counter)
    counter.n += 1
    return PingResult(n=counter.n)


CAP = Capability(
    name="ping", summary="Counts.", state=_state, methods=(PING,), handlers={PING.name: ping}
)


def _registry(home: Path, services: Any) -> CapabilityRegistry:
    reg = CapabilityRegistry([CAP], SetupContext(home=home, config=None, env={}))
    reg.attach(services)
    return reg


def _ctx(route: Any) -> HandlerContext:
    return HandlerContext(
        services=None,  # type: ignore[arg-type]
        workspace=None,  # type: ignore[arg-type]
        config=route.config,
        notify=lambda *_: True,
        own_state=route.state,
    )


async def test_state_is_made_once_per_daemon_at_its_first_use(tmp_path: Path) -> None:
    made.clear()
    one, two = object(), object()
    a, b = _registry(tmp_path / "a", one), _registry(tmp_path / "b", two)
    assert made == []  # nothing made at assembly
    ra, rb = a.route(PING.name), b.route(PING.name)
    assert ra is not None and rb is not None and a.route(PING.name) is ra  # one route per row
    assert (await ra.call({}, _ctx)).n == 1
    assert (await ra.call({}, _ctx)).n == 2
    assert (await rb.call({}, _ctx)).n == 1  # another daemon, another state: no module global
    assert [(c.home.name, c.services) for c in made] == [("a", one), ("b", two)]


async def test_params_are_validated_by_the_route_before_the_handler(tmp_path: Path) -> None:
    from ggd.protocol import errors as E

    route = _registry(tmp_path, object()).route(PING.name)
    assert route is not None
    with pytest.raises(E.InvalidParamsError, match="invalid params: extra"):
        await route.call({"extra": 1}, _ctx)


def test_a_state_of_the_wrong_kind_is_a_loud_bug(tmp_path: Path) -> None:
    ctx = HandlerContext(
        services=None,  # type: ignore[arg-type]
        workspace=None,  # type: ignore[arg-type]
        config=None,
        notify=lambda *_: True,
        own_state="not a counter",
    )
    with pytest.raises(TypeError, match="not Counter"):
        ctx.state(Counter)


def test_state_before_the_core_is_attached_is_refused(tmp_path: Path) -> None:
    reg = CapabilityRegistry([CAP], SetupContext(home=tmp_path, config=None, env={}))
    with pytest.raises(RuntimeError, match="attached"):
        reg.state("ping")
