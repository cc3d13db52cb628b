"""The usage totals of a session: the sum of its `usage` entries (one per model request).

Every entry of the file counts, on every branch: tokens spent on an abandoned branch were
still paid for. A fork or clone copies its origin's entries, usage included (they keep each
request's parameters); those were paid for by the origin, so only entries written after the copy
was made count for it. `costUsd` is null once one request has no stored cost (no price was
known then, or the server reported no usage): a partial sum would be a wrong number.
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
    """The usage entries this session paid for (a copy's inherited ones left out).

    `entries` in file order. A copy's link counts the entries it copied (`copied`): they are
    the file's first lines. A copy written before that count existed falls back to its
    creation time (an entry of the same millisecond then counts as inherited).
    """
    link = header.parent or {}
    copied = link.get("copied")
    if type(copied) is int:
        return [e for i, e in enumerate(entries) if i >= copied and e.kind == "usage"]
    if link.get("kind") in ("fork", "clone"):
        since = header.created_at
        return [e for e in entries if e.kind == "usage" and e.timestamp > since]
    return [e for e in entries if e.kind == "usage"]


def usage_totals(entries: Iterable[Entry]) -> dict[str, Any] | None:
    """{"requests", the token keys, "costUsd"} of the usage entries, or None without any.

    Unrolled over the keys: a session list sums every usage entry of a changed session file.
    """
    requests = prompt = completion = total = read = written = reasoning = 0
    cost: float | None = 0.0
    for entry in entries:
        if entry.kind != "usage":
            continue
        data = entry.data
        requests += 1
        p = data.get("promptTokens")
        if type(p) is int:
            prompt += p
        c = data.get("completionTokens")
        if type(c) is int:
            completion += c
        v = data.get("totalTokens")
        if type(v) is int:
            total += v
        v = data.get("cacheReadTokens")
        if type(v) is int:
            read += v
        v = data.get("cacheWriteTokens")
        if type(v) is int:
            written += v
        v = data.get("reasoningTokens")
        if type(v) is int:
            reasoning += v
        spent = data.get("costUsd")
        if type(spent) is float or type(spent) is int:
            if cost is not None:
                cost += spent
        else:
            cost = None
    if not requests:
        return None
    values = (prompt, completion, total, read, written, reasoning)
    return {"requests": requests, **dict(zip(USAGE_KEYS, values, strict=True)), "costUsd": cost}
