"""The automatic prefix cache the OpenAI and Gemini fakes emulate, so caching is measured.

The rule (close to what both providers document for their implicit caching): a request's
tokens are its body bytes / 4, rounded up; a request of at least MIN_TOKENS reads from cache
the longest byte prefix it shares with any earlier request of the same fake, counted in whole
BLOCK-token blocks (OpenAI caches in 128-token increments after the first 1024). A body whose
early bytes change (a timestamp, a reordered tool) shares almost nothing and reads ~0 tokens.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 4
BLOCK = 128
MIN_TOKENS = 1024

__all__ = ["BLOCK", "MIN_TOKENS", "cached_tokens", "common_prefix", "tokens"]


def tokens(raw: bytes) -> int:
    """The emulated token count of a request body."""
    return max(1, -(-len(raw) // BYTES_PER_TOKEN))


def common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of two byte strings."""
    n = min(len(a), len(b))
    lo, hi = 0, n  # binary search on equal prefixes: fast slices instead of a byte loop
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def cached_tokens(raw: bytes, earlier: list[bytes]) -> int:
    """Tokens of `raw` the emulated cache serves, given the bodies sent before it."""
    if tokens(raw) < MIN_TOKENS or not earlier:
        return 0
    shared = max(common_prefix(raw, e) for e in earlier)
    return (shared // BYTES_PER_TOKEN) // BLOCK * BLOCK
