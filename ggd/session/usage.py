"""The usage totals of a session: the sum of its `usage` entries (one per model request).

Every entry of the file counts, on every branch: tokens spent on an abandoned branch were
still paid for. A fork or clone copies its origin's entries, usage included (they keep each
request's parameters); those were paid for by the origin, so only entries written after the copy
was made count for it. `costUsd` is null once one request with tokens has no stored cost (no
price was known then): a partial sum would be a wrong number.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .model import Entry, SessionHeader

__all__ = ["USAGE_KEYS", "own_usage", "usage_totals"]

USAGE_KEYS = (
    "promptTokens",
    "completionTokens",
    "totalTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "reasoningTokens",
)


def own_usage(header: SessionHeader, entries: Iterable[Entry]) -> list[Entry]:
    """The usage entries this session paid for (a copy's inherited ones left out)."""
    since = header.created_at if header.parent else None
    return [e for e in entries if e.kind == "usage" and (since is None or e.timestamp > since)]


def usage_totals(entries: Iterable[Entry]) -> dict[str, Any] | None:
    """{"requests", the token keys, "costUsd"} of the usage entries, or None without any."""
    totals = dict.fromkeys(USAGE_KEYS, 0)
    requests = 0
    cost: float | None = 0.0
    for entry in entries:
        if entry.kind != "usage":
            continue
        data = entry.data
        requests += 1
        for key in USAGE_KEYS:
            value = data.get(key)
            if type(value) is int:
                totals[key] += value
        spent = data.get("costUsd")
        if isinstance(spent, int | float) and not isinstance(spent, bool):
            if cost is not None:
                cost += spent
        elif data.get("promptTokens") or data.get("completionTokens"):
            cost = None
    if not requests:
        return None
    return {"requests": requests, **totals, "costUsd": cost}
