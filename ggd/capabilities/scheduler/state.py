"""What a daemon's scheduler handlers and its channel share: one store, one Firing, the channel."""

from __future__ import annotations

from dataclasses import dataclass

from ggd.app import DaemonServices

from .firing import Firing
from .loop import SchedulerChannel
from .store import JobStore


@dataclass
class Shared:
    """The per-daemon scheduler objects (keyed by the daemon's services object)."""

    store: JobStore
    firing: Firing
    channel: SchedulerChannel | None = None
    off_reason: str = "the scheduler channel has not started in this daemon"


_SHARED: dict[int, Shared] = {}


def shared(services: DaemonServices) -> Shared:
    """This daemon's scheduler objects, made on first use."""
    key = id(services)
    got = _SHARED.get(key)
    if got is None:
        store = JobStore(services.home)
        got = _SHARED[key] = Shared(store, Firing(services, store))
    return got


def scheduler_state(services: DaemonServices) -> str:
    """`running`, or why jobs do not fire in this daemon."""
    got = shared(services)
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


__all__ = ["Shared", "scheduler_state", "shared"]
