"""The knowledge-base capability: per-base SQLite indexes (FTS5 BM25 + float32 vectors) over a
folder's documents and code, hybrid search by reciprocal rank fusion, gg/kb.* methods and the
read-only kb_search tool."""

from __future__ import annotations

from typing import Any

from .config import KbConfig
from .provider import CAPABILITY, KbProvider


def __getattr__(name: str) -> Any:
    # KbService (SQLite, the index and search) is imported when asked for, not with the catalog.
    if name == "KbService":
        from .service import KbService

        return KbService
    raise AttributeError(name)


__all__ = ["CAPABILITY", "KbConfig", "KbProvider", "KbService"]
