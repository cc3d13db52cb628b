"""A run's subscriber set and its per-loop-pass delivery of deltas (one hand-off per connection).

A streaming run emits hundreds of deltas in one step of its task (one HTTP read of the model's
stream). Handing each to every subscriber costs one Python call per subscriber per event, so
connections that can take a batch (`HeldSubscriber`: `ggd.rpc.Connection`) are given the pass's
deltas once: the run keeps their bodies, marks each such connection as held by it, and delivers
when the loop next runs callbacks. Order holds because a held connection lets its holders
deliver first whenever anything else is sent to it or its writer takes its queue, and because any
change of the set (subscribe, unsubscribe, a close's drop) and any other event of the run
delivers first too. Other subscribers (in-process sinks, test doubles) get each event at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, MutableSet
from typing import Any, Protocol, runtime_checkable


class Subscriber(Protocol):
    """A connection that takes notifications without awaiting."""

    closed: bool

    def notify(
        self,
        method: str,
        params: dict[str, Any],
        *,
        droppable: bool = True,
        body: bytes | None = None,
    ) -> bool: ...


class Holder(Protocol):
    """What holds deltas for a connection: it delivers them when asked (a Run)."""

    def deliver_held(self) -> None: ...


# Per flush: a transport's framer -> (the bodies framed by it, their total length).
FrameCache = dict[object, tuple[list[bytes], int]]


@runtime_checkable
class HeldSubscriber(Subscriber, Protocol):
    """A subscriber that can take a pass's deltas in one call (`ggd.rpc.Connection`)."""

    def hold(self, holder: Holder) -> None: ...

    def deliver(self, holder: Holder, bodies: list[bytes], cache: FrameCache) -> bool: ...


class SubscriberSet(MutableSet[Subscriber]):
    """A run's subscribers; any change first delivers what is held and re-splits the set."""

    def __init__(self, items: Iterable[Subscriber] = ()) -> None:
        self._items: set[Subscriber] = set(items)
        self.before_change: Callable[[], None] | None = None
        self._split: tuple[tuple[Subscriber, ...], tuple[HeldSubscriber, ...]] | None = None

    def split(self) -> tuple[tuple[Subscriber, ...], tuple[HeldSubscriber, ...]]:
        """(subscribers given each event at once, subscribers given a pass's deltas at once)."""
        split = self._split
        if split is None:
            direct = tuple(s for s in self._items if not isinstance(s, HeldSubscriber))
            held = tuple(s for s in self._items if isinstance(s, HeldSubscriber))
            split = self._split = (direct, held)
        return split

    def _changing(self) -> None:
        if self.before_change is not None:
            self.before_change()
        self._split = None

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def __iter__(self) -> Iterator[Subscriber]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, value: Subscriber) -> None:
        """Add a subscriber (after delivering what the others are owed)."""
        self._changing()
        self._items.add(value)

    def discard(self, value: Subscriber) -> None:
        """Remove a subscriber, if present, after delivering what it is owed."""
        self._changing()
        self._items.discard(value)

    def update(self, *others: Iterable[Subscriber]) -> None:
        """Add subscribers."""
        self._changing()
        self._items.update(*others)


def schedule(callback: Callable[[], None]) -> None:
    """Run callback when the loop next runs its callbacks; at once outside a running loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop (a synchronous caller): nothing to defer to
        callback()
    else:
        loop.call_soon(callback)
