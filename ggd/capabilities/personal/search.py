"""Keyword search over every memory file: lines ranked by how many query words they contain."""

from __future__ import annotations

from dataclasses import dataclass

from .scope import MemoryInputError
from .store import MemoryStore

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
SNIPPET_CHARS = 200


@dataclass(frozen=True)
class Hit:
    """One matching line."""

    path: str  # relative to the memory root
    line: int
    text: str
    score: int  # distinct query words the line contains

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def search(store: MemoryStore, query: str, limit: int = DEFAULT_LIMIT) -> list[Hit]:
    """Case-insensitive keyword search: lines with every word first, then fewer; file order ties.

    Reads files from disk: call it from a worker thread inside the daemon.
    """
    words = sorted({w for w in query.lower().split() if w})
    if not words:
        raise MemoryInputError("query is empty; give one or more words to look for")
    limit = max(1, min(MAX_LIMIT, limit))
    hits: list[Hit] = []
    for rel in store.files():
        for number, line in enumerate(store.read(rel).splitlines(), 1):
            low = line.lower()
            score = sum(1 for w in words if w in low)
            if score:
                hits.append(Hit(rel.as_posix(), number, _snippet(line), score))
    hits.sort(key=lambda h: -h.score)  # stable: file order among equal scores
    return hits[:limit]


def _snippet(line: str) -> str:
    text = " ".join(line.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


__all__ = ["DEFAULT_LIMIT", "Hit", "search"]
