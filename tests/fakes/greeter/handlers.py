"""The handler: typed params in, a typed result out; state and config from the context."""

from __future__ import annotations

from ggd.app import Handler, HandlerContext

from .protocol import GREETER_GREET, GreeterGreetParams, GreeterGreetResult


class Greetings:
    """The capability's per-daemon state."""

    def __init__(self, greeting: str) -> None:
        self.greeting = greeting
        self.count = 0


async def greeter_greet(ctx: HandlerContext, params: GreeterGreetParams) -> GreeterGreetResult:
    """Greet `params.name`; the count is shared by every connection of this daemon."""
    state = ctx.state(Greetings)
    state.count += 1
    return GreeterGreetResult(
        text=f"{state.greeting}, {params.name}!", count=state.count, workspace=ctx.workspace.name
    )


HANDLERS: dict[str, Handler] = {GREETER_GREET.name: greeter_greet}
