"""Build in a quiet moment what a daemon's first requests would otherwise build while a user waits.

The wire models are `defer_build` (ggd.protocol.base): pydantic makes a model's validator and
serializer at its first use, not at import, which keeps ~20-30 ms out of every start. A daemon
that serves for a while would still pay them inside its first run (~13 ms of CPU: the
session's snapshot, the run's events, the params of session.create, run.start, run.subscribe).
Once the daemon has been quiet for a moment (no run active, no connection opened or closed
for QUIET_S), this builds them one at a time, yielding to the loop between two, so a request
that arrives meanwhile waits for one model's build at most (well under a millisecond).

A private daemon (`gg --no-daemon`, an editor's sidecar) gets its first request at once, so the
first run builds what it needs as before, and the rest is built in its first quiet moment.
Nothing here imports a module: a capability's models are built only once it has been used.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable, Iterator

from ggd.protocol.base import WireModel
from ggd.protocol.methods import METHODS
from ggd.rpc.hub import Hub

log = logging.getLogger("ggd.daemon")

# How long the daemon must have been quiet before the next build (and its first one).
QUIET_S = 0.5


def _models(base: type[WireModel]) -> Iterator[type[WireModel]]:
    """Every loaded subclass of base, depth first, each once."""
    seen: set[type[WireModel]] = set()
    stack = list(base.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(cls.__subclasses__())
        yield cls


def steps(hub: Hub) -> list[Callable[[], object]]:
    """The builds still to do: every loaded wire model, then the core request rows' adapters.

    Models first: an adapter made over a model not built yet would build its own at its
    first call (pydantic's deferred adapter), the very cost this is meant to take off a run.
    """
    todo: list[Callable[[], object]] = [
        cls.model_rebuild for cls in _models(WireModel) if not cls.__pydantic_complete__
    ]
    todo.extend(
        functools.partial(_warm_route, hub, spec.name)
        for spec in METHODS  # the core rows: a capability's would import its modules
        if spec.kind == "request" and spec.direction == "client"
    )
    return todo


def _warm_route(hub: Hub, method: str) -> None:
    route = hub.core.registry.route(method)
    if route is None:
        return
    adapter = route.adapter()
    # Made over a deferred model, the adapter builds its validator at its first call: now.
    rebuild = getattr(adapter, "rebuild", None)  # pydantic >= 2.10
    if rebuild is not None:
        rebuild()


def until_quiet(hub: Hub, now: float | None = None) -> float:
    """Seconds until the daemon is quiet: no run active, no connection opened or closed for
    QUIET_S; 0 when it is quiet now."""
    now = time.monotonic() if now is None else now
    if hub.runs.active_count():
        return QUIET_S
    return max(0.0, hub.last_activity + QUIET_S - now)


async def _quiet(hub: Hub) -> None:
    # A poll, not an event: quiet is a span of time without activity, and the hub keeps its
    # last activity as a timestamp, not a signal.
    while True:
        wait = until_quiet(hub)
        if wait <= 0:
            return
        await asyncio.sleep(wait)


async def warm_when_quiet(hub: Hub) -> int:
    """Do every step of `steps(hub)` in quiet moments; returns how many ran (for tests)."""
    await asyncio.sleep(QUIET_S)
    done = 0
    cpu = 0.0
    for step in steps(hub):
        await _quiet(hub)
        t0 = time.thread_time()  # the loop's own CPU, not a worker thread's
        try:
            step()
        except Exception:  # a model that cannot build now fails at its first use, as before
            log.debug("warm-up step failed", exc_info=True)
        cpu += time.thread_time() - t0
        done += 1
        await asyncio.sleep(0)
    log.info("warm-up done", extra={"steps": done, "cpu_ms": round(cpu * 1000, 1)})
    return done
