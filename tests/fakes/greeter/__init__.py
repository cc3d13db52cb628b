"""docs/extending.md's worked example: a whole capability in one folder.

Loaded by a daemon with `GG_CAPABILITIES_EXTRA=tests.fakes.greeter` (the out-of-tree form of
a catalog line); tests/e2e/test_extending_example.py builds it and calls it through a real ggd.
"""

from __future__ import annotations

from ggd.app import Capability, StateContext

from .config import GreeterConfig
from .handlers import HANDLERS, Greetings
from .protocol import METHODS


def _state(ctx: StateContext) -> Greetings:
    # Made once per daemon by the registry; every handler call gets this same object.
    return Greetings(ctx.section(GreeterConfig).greeting)


CAPABILITY = Capability(
    name="greeter",
    summary="Greets by name and counts the greetings of this daemon.",
    config_key="greeter",
    config_model=GreeterConfig,
    state=_state,
    methods=METHODS,
    handlers=HANDLERS,
)

__all__ = ["CAPABILITY"]
