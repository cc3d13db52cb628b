"""One naming rule for sessions: an explicit name, else the session's first prompt; copy names."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ggd.session import SessionFile, SessionRepository

__all__ = ["NAME_CHARS", "copy_name", "name_copy", "session_name"]

NAME_CHARS = 60

# " (fork)", " (fork 3)", " (clone)", " (clone 2)" at the end of a name made by copy_name.
_COPY_SUFFIX = re.compile(r" \((?:fork|clone)(?: \d+)?\)$")


def _cut(text: str, limit: int) -> str:
    text = " ".join(text[: limit * 4].split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:  # end on a whole word when one ends in the second half
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def session_name(explicit: str | None, first_prompt: str | None) -> str:
    """The name every client shows: the explicit name, else the first user prompt, cut to ~60."""
    if explicit and explicit.strip():
        return explicit.strip()
    return _cut(first_prompt or "", NAME_CHARS)


def copy_name(source: str, kind: str, taken: Iterable[str]) -> str:
    """A distinct name for a fork or clone of `source`: `calc fix (fork)`, `calc fix (fork 2)`."""
    base = _COPY_SUFFIX.sub("", source).strip() or "Untitled"
    names = set(taken)
    candidate = f"{base} ({kind})"
    n = 1
    while candidate in names:
        n += 1
        candidate = f"{base} ({kind} {n})"
    return candidate


def name_copy(repo: SessionRepository, sf: SessionFile, kind: str) -> str:
    """The name for a new fork/clone of sf, distinct among its workspace's sessions (blocking)."""
    # One listing of the whole workspace (each page would scan the directory again).
    rows, _ = repo.list(sf.header.workspace_id, limit=1 << 30)
    taken = [session_name(r.name, r.first_prompt) for r in rows]
    return copy_name(session_name(sf.name, sf.first_prompt), kind, taken)
