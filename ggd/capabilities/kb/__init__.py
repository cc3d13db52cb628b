"""The knowledge-base capability: per-base SQLite indexes (FTS5 BM25 + float32 vectors) over a
folder's documents and code, hybrid search by reciprocal rank fusion, gg/kb.* methods and the
read-only kb_search tool."""

from __future__ import annotations

from .config import KbConfig
from .provider import CAPABILITY, KbProvider
from .service import KbService

__all__ = ["CAPABILITY", "KbConfig", "KbProvider", "KbService"]
