"""gg/greeter.greet: the row, its params and its result (the only place the name is written)."""

from __future__ import annotations

from pydantic import Field

from ggd.protocol import MethodSpec
from ggd.protocol.base import Params, Result


class GreeterGreetParams(Params):
    """Whom to greet."""

    name: str = Field(min_length=1, max_length=80)


class GreeterGreetResult(Result):
    """The greeting, and how many this daemon has made."""

    text: str
    count: int
    workspace: str


GREETER_GREET = MethodSpec(
    "gg/greeter.greet",
    "Greet someone by name.",
    GreeterGreetParams,
    GreeterGreetResult,
)

METHODS: tuple[MethodSpec, ...] = (GREETER_GREET,)
