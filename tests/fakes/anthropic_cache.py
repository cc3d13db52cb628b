"""Anthropic's prompt cache, emulated: prefix reuse at `cache_control` breakpoints.

What the API documents, and this does: a request is a sequence of blocks (tools, then system,
then each message's content blocks); a block marked with `cache_control` is a breakpoint. The
prefix up to a breakpoint is written to the cache (once it has at least `min_tokens`); a later
request reads the longest prefix written before that ends at one of its breakpoints or at most
`lookback` blocks before one. Usage splits the input: `cache_read_input_tokens` (the prefix read),
`cache_creation_input_tokens` (from there to the last breakpoint) and `input_tokens` (the rest).
Tokens are estimated as 4 characters each of a block's canonical JSON (cache_control left out,
so marking a block does not change what it caches). The cache is per model and never expires.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

__all__ = ["CacheUse", "PromptCache", "blocks_of"]


@dataclass(frozen=True)
class CacheUse:
    """How one request's input divides up."""

    input_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int

    @property
    def total(self) -> int:
        """Every input token of the request."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


def _canonical(value: Any) -> str:
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "cache_control"}
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def blocks_of(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request as (canonical block, is a breakpoint), in the cache's prefix order."""
    out: list[tuple[str, bool]] = []
    for tool in body.get("tools") or []:
        out.append(("tool:" + _canonical(tool), "cache_control" in tool))
    system = body.get("system")
    if isinstance(system, str):
        out.append(("system:" + _canonical({"type": "text", "text": system}), False))
    else:
        for block in system or []:
            out.append(("system:" + _canonical(block), "cache_control" in block))
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            role = f"{i}:{msg.get('role')}:"
            out.append(
                (role + _canonical(block), isinstance(block, dict) and "cache_control" in block)
            )
    return out


class PromptCache:
    """The cache of one fake server; account() is called once per request, in arrival order."""

    def __init__(self, min_tokens: int = 1024, lookback: int = 20) -> None:
        self.min_tokens = min_tokens
        self.lookback = lookback
        self._written: set[str] = set()
        self._lock = threading.Lock()

    def account(self, body: dict[str, Any]) -> CacheUse:
        """Read and write the cache for one request; how its input tokens divide up."""
        blocks = blocks_of(body)
        digest = hashlib.sha256(str(body.get("model")).encode())
        hashes: list[str] = []
        tokens: list[int] = []
        total = 0
        for text, _ in blocks:
            digest.update(text.encode())
            hashes.append(digest.copy().hexdigest())
            total += max(1, (len(text) + 3) // 4)
            tokens.append(total)
        points = [i for i, (_, bp) in enumerate(blocks) if bp and tokens[i] >= self.min_tokens]
        with self._lock:
            read_at = -1
            for point in points:
                for pos in range(point, max(-1, point - self.lookback), -1):
                    if hashes[pos] in self._written:
                        read_at = max(read_at, pos)
                        break
            for point in points:
                self._written.add(hashes[point])
        read = tokens[read_at] if read_at >= 0 else 0
        last = points[-1] if points else -1
        created = tokens[last] - read if last > read_at else 0
        return CacheUse(total - read - created, read, created)
