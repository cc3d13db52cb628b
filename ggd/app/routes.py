"""One row of the method table as a call: its params model, its handler, its capability's config
and state. Made once per daemon for each request row, at the row's first call.

The rpc layer hands `Route.call` the raw params object of a request; the route validates it with
the row's pydantic model (the only validation a request's params get) and calls the handler
with the typed params and a `HandlerContext`. Core and capability handlers have the same shape.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from ggd.protocol import MethodSpec
from ggd.protocol import errors as E

from .extension import Capability, Handler, HandlerContext

__all__ = ["Route", "validation_message"]


def validation_message(exc: ValidationError) -> str:
    """A -32602 message naming the first bad field."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first.get("loc", ())) or "params"
    # loc names the client's own keys: bounded so an error never echoes a huge key back
    return f"invalid params: {loc[:80]}: {first.get('msg', 'invalid value')}"


@dataclass(eq=False)
class Route:
    """A client request row bound to its handler, once per daemon."""

    spec: MethodSpec
    capability: Capability
    handler: Handler
    config: BaseModel | None
    state: object
    # Built at the first call: a TypeAdapter costs more than a request.
    _adapter: TypeAdapter[Any] | None = field(default=None, repr=False)

    @property
    def method(self) -> str:
        """The wire name."""
        return self.spec.name

    def adapter(self) -> TypeAdapter[Any]:
        """The params validator of the row, made at its first use."""
        adapter = self._adapter
        if adapter is None:
            adapter = self._adapter = TypeAdapter(self.spec.params)
        return adapter

    def params(self, raw: dict[str, Any]) -> Any:
        """The request's params as the row's model; a mismatch is invalid_params."""
        try:
            return self.adapter().validate_python(raw)
        except ValidationError as exc:
            raise E.InvalidParamsError(validation_message(exc)) from None

    async def call(
        self, raw: dict[str, Any], make_context: Callable[[Route], HandlerContext]
    ) -> Any:
        """Validate, then run the handler with the context the caller builds for this route."""
        params = self.params(raw)
        return await self.handler(make_context(self), params)
