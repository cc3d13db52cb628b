"""The core's own gg/* methods, declared as a capability like any other: rows and handlers.

One module per protocol area holds thin handlers of the common shape `(ctx, params)`; the hub
registers `CAPABILITY` into the daemon's one method table once, with itself as its state.
"""

from __future__ import annotations

from ggd.app import Capability
from ggd.protocol.methods import METHODS

from . import checkpoints, hooks, run, session, system

CAPABILITY = Capability(
    name="gg",
    summary="The core protocol: sessions, runs, workspaces, system info and media.",
    methods=METHODS,
    handlers={
        **session.HANDLERS,
        **checkpoints.HANDLERS,
        **run.HANDLERS,
        **system.HANDLERS,
        **hooks.HANDLERS,
    },
)

__all__ = ["CAPABILITY", "checkpoints", "hooks", "run", "session", "system"]
