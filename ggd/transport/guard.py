"""Bytes to a JSON value without trusting the sender: strict UTF-8, bounded nesting, plain JSON.

`json.loads` recurses once per nesting level and raises RecursionError near 1,000 levels (less
when called from deep inside the event loop), which used to escape `Endpoint.feed` and drop the
connection. The depth is therefore measured with a linear scan before parsing; nothing here
relies on catching RecursionError.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import accumulate, count
from operator import sub
from typing import Any

# JSON-RPC messages gg accepts are a handful of levels deep (the deepest known is a tool call's
# arguments inside params). 64 leaves room for any honest client; json.loads, pygls' cattrs and
# pydantic all handle several hundred levels, so 64 keeps a wide margin below the recursion limit.
MAX_DEPTH = 64

# A JSON string literal: the unrolled form is linear and never backtracks.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")  # opener 2, closer 0
_CHUNK = 1 << 16
# A \uD800-\uDFFF escape: a lone surrogate would decode to a str that cannot be encoded again.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


@dataclass(frozen=True)
class Rejected:
    """Why a message body was not turned into a value: a JSON-RPC code, symbol and message."""

    code: int
    symbol: str
    message: str


def nesting_depth(body: bytes) -> int:
    """The deepest bracket nesting outside string literals (a bound once past MAX_DEPTH).

    No Python-level loop per byte: brackets are mapped to steps of +1/-1 and the running sum is
    computed by itertools in chunks, stopping at the first chunk that goes past MAX_DEPTH.
    """
    openers = body.count(b"[") + body.count(b"{")
    if openers <= MAX_DEPTH:
        return openers  # a bound already: ordinary messages skip the scan
    # An unterminated string is left in place; its brackets then count, which only errs towards
    # refusing a message that is invalid anyway.
    steps = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS).translate(_STEPS)
    depth = peak = 0
    for at in range(0, len(steps), _CHUNK):
        chunk = steps[at : at + _CHUNK]
        # prefix sums of (2 or 0) minus the position are the prefix sums of (+1 or -1)
        peak = max(peak, depth + max(map(sub, accumulate(chunk), count(1))))
        if peak > MAX_DEPTH:
            break
        depth += sum(chunk) - len(chunk)
    return peak


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(body: bytes) -> Any | Rejected:
    """Parse one message body, or say why it is refused (-32700 or -32600)."""
    try:
        text = body.decode("utf-8")  # strict: no surrogates, no overlongs, no stray bytes
    except UnicodeDecodeError:
        return Rejected(-32700, "parse_error", "parse error: the message is not valid UTF-8")
    if nesting_depth(body) > MAX_DEPTH:
        return Rejected(
            -32600, "invalid_request", f"invalid request: nesting deeper than {MAX_DEPTH} levels"
        )
    try:
        # NaN and Infinity are Python extensions, not JSON; echoing them back would be invalid.
        value = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        # RecursionError cannot happen below MAX_DEPTH; caught only so a future limit change
        # degrades into an error reply rather than a dropped connection.
        return Rejected(-32700, "parse_error", "parse error: not valid JSON")
    if b"\\u" in body and _SURROGATE_ESCAPE.search(body) and not _encodable(value):
        return Rejected(
            -32700, "parse_error", "parse error: a string holds an unpaired surrogate escape"
        )
    return value


def _encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
