"""The knowledge-base capability: per-base SQLite indexes (FTS5 BM25 + float32 vectors) over a
folder's documents and code, hybrid search by reciprocal rank fusion, gg/kb.* methods and the
read-only kb_search tool."""

from __future__ import annotations

from typing import Any

from ggd.app import Capability, DeferredHandlers, DeferredRows, SetupContext, ToolProvider

from .config import KbConfig
from .errors import ERRORS
from .provider import KbProvider


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [KbProvider(setup.home, setup.section(KbConfig), setup.env)]


CAPABILITY = Capability(
    name="kb",
    summary="Local knowledge bases: hybrid BM25 + vector search over your documents and code.",
    config_key="kb",
    config_model=KbConfig,
    providers=_providers,
    methods=DeferredRows(__name__, "kb"),
    handlers=DeferredHandlers(__name__),
    errors=ERRORS,
)


def __getattr__(name: str) -> Any:
    # KbService (SQLite, the index and search) is imported when asked for, not with the catalog.
    if name == "KbService":
        from .service import KbService

        return KbService
    raise AttributeError(name)


__all__ = ["CAPABILITY", "KbConfig", "KbProvider", "KbService"]
