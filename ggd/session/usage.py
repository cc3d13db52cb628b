"""The usage totals of a session: the sum of its `usage` entries (one per model request).

Every entry of the file counts, on every branch: tokens spent on an abandoned branch were
still paid for. `costUsd` is null once one request with tokens has no stored cost (no price
was known then): a partial sum would be a wrong number.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .model import Entry

__all__ = ["USAGE_KEYS", "usage_totals"]

USAGE_KEYS = (
    "promptTokens",
    "completionTokens",
    "totalTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "reasoningTokens",
)


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
