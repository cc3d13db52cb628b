"""The daemon's memory policy: what the cyclic garbage collector does, and when.

Decided here, for the whole process, and handed to the layers that only mark the moments:
- a bulk load (a session file, a snapshot: ggd.session.codec.bulk_allocation) builds many acyclic
  objects; each young-generation pass would re-walk the growing heap, so the collector pauses
  for it (roughly halves the time to load 100k entries; nothing built there forms cycles);
- the first run ends start-up: what start-up built (modules, method tables, providers) moves to
  the permanent generation, or every full collection of a streaming run rescans it (~50 ms each
  on this machine, several µs of every event of a 20k-event run).
The collector is also off while the daemon imports, then frozen (ggd.daemon.main).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

from ggd.session import codec

__all__ = ["freeze_start_up", "install", "paused_collector"]


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """The cyclic collector off for the span (restored as it was; nesting is fine)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def freeze_start_up() -> None:
    """Move everything alive now to the collector's permanent generation."""
    gc.freeze()


def install() -> None:
    """Make this the process's policy for bulk loads (the daemon, at start)."""
    codec.set_bulk_policy(paused_collector)
