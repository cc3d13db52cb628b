"""One row of the method table: a gg method's wire name, direction, types and example.

Its own module so a protocol module can hold the rows of its area beside their models
(client.py's gg/client.* requests) without importing the table that lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Scope = Literal["none", "session", "run"]


@dataclass(frozen=True)
class MethodSpec:
    """One row: wire name, kind, direction, params and result types, stability and scope."""

    name: str
    summary: str
    params: Any
    result: Any = None
    kind: Literal["request", "notification"] = "request"
    direction: Literal["client", "server"] = "client"
    since: str = "1.0"
    stable: bool = True
    scope: Scope = "none"
    example: dict[str, Any] = field(default_factory=dict)

    @property
    def area(self) -> str:
        """The protocol area, e.g. `session` for gg/session.list."""
        return self.name.removeprefix("gg/").split(".", 1)[0]


__all__ = ["MethodSpec", "Scope"]
