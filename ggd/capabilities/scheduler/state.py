"""What a daemon's scheduler handlers and its channel share: one store, one Firing, the channel."""

from __future__ import annotations

from dataclasses import dataclass

from ggd.app import ChannelContext, HandlerContext, StateContext

from .firing import Firing
from .loop import SchedulerChannel
from .store import JobStore


@dataclass
class Shared:
    """The per-daemon scheduler objects: the capability's state, made once by the registry."""

    store: JobStore
    firing: Firing
    channel: SchedulerChannel | None = None
    off_reason: str = "the scheduler channel has not started in this daemon"
    # The loop's longest sleep (GG_SCHEDULER_MAX_SLEEP in the daemon's environment, for tests).
    max_sleep: float = 30.0


def make_state(ctx: StateContext, *, max_sleep: float) -> Shared:
    """The capability's `state` factory (ggd.app.Capability.state)."""
    store = JobStore(ctx.home)
    return Shared(store, Firing(ctx.services, store), max_sleep=max_sleep)


def shared(ctx: HandlerContext | ChannelContext) -> Shared:
    """This daemon's scheduler objects, as a handler or the channel factory sees them."""
    return ctx.state(Shared)


def scheduler_state(ctx: HandlerContext) -> str:
    """`running`, or why jobs do not fire in this daemon."""
    got = shared(ctx)
    services = ctx.services
    if got.channel is not None and got.channel.running:
        return "running"
    if got.channel is not None and got.channel.failure:
        return f"failed: {got.channel.failure}"
    # The daemon's supervisor knows why the channel is not running (disabled, failed, stopped).
    state = services.channel_state("scheduler")
    if state is not None and state[0] != "running":
        return f"{state[0]}: {state[1]}" if state[1] else state[0]
    if not services.owns_channels:
        return "not running here: this daemon does not own the channels (see gg/system.info)"
    return got.off_reason


__all__ = ["Shared", "make_state", "scheduler_state", "shared"]
