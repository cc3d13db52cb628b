"""Shared pydantic bases: camelCase on the wire, strict params, frozen events."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

# The largest integer every JSON reader holds exactly; the upper bound of counters and offsets in
# params, so a client's 10^18 is a -32602 from the model, not an overflow inside a handler.
MAX_SAFE_INT = 2**53 - 1


class WireModel(BaseModel):
    """Base of every wire object: snake_case in Python, camelCase on the wire."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The JSON-ready dict sent to clients (aliases, no None fields)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class Params(WireModel):
    """Base of method params: strict and closed, so typos and loose types surface as -32602.

    Strict: `true` or `"1"` is not an integer and `1` is not a boolean; clients send JSON types.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        strict=True,
        defer_build=True,
    )


class Result(WireModel):
    """Base of method results."""


class Event(WireModel):
    """Base of notification payloads: immutable once emitted."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, defer_build=True
    )


class Empty(Params):
    """No params, or an empty result."""


# One encoder for every message: json.dumps with options builds a new JSONEncoder per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def encode_message(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message as compact UTF-8 JSON: the bytes every transport sends."""
    return _ENCODER.encode(message).encode()
