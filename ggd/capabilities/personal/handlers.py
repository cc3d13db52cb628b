"""Request handlers of gg/memory.*: the only way clients (the CLI, the web UI) touch the stores."""

from __future__ import annotations

import asyncio
from typing import Any

from ggd.app import HandlerContext
from ggd.protocol import errors as E
from ggd.protocol.base import Empty

from .config import MemoryConfig
from .profile import KNOWN_KEYS, PROFILE_FILE, ProfileError, read_profile_text, write_profile
from .protocol import (
    MemoryAddParams,
    MemoryAddResult,
    MemoryHit,
    MemoryInitParams,
    MemoryInitResult,
    MemorySearchParams,
    MemorySearchResult,
    MemoryShowResult,
)
from .scope import MemoryInputError, parse_scope
from .search import DEFAULT_LIMIT, search
from .store import MemoryBusyError, MemoryStore


def _store(ctx: HandlerContext) -> MemoryStore:
    """The store, or capability_unavailable when memory is switched off."""
    config = ctx.section(MemoryConfig)
    if not config.enabled:
        raise E.CapabilityUnavailableError(
            "memory is off; set memory.enabled to true in config.json and restart ggd"
        )
    return MemoryStore(ctx.services.home, config.dailyLogRetentionDays)


async def memory_show(ctx: HandlerContext, params: Empty) -> MemoryShowResult:
    """The texts the next run's prompt is built from."""
    home = ctx.services.home
    config = ctx.section(MemoryConfig)
    store = MemoryStore(home, config.dailyLogRetentionDays)

    def read() -> MemoryShowResult:
        path = home / PROFILE_FILE
        text, problem = None, None
        try:
            text = read_profile_text(path)
        except ProfileError as exc:
            problem = str(exc)
        enabled = config.enabled
        return MemoryShowResult(
            enabled=enabled,
            profile_exists=text is not None or problem is not None,
            profile=text or "",
            profile_problem=problem,
            memory=store.curated() if enabled else "",
            today=store.today_log() if enabled else "",
            today_date=store.today().isoformat(),
        )

    return await asyncio.to_thread(read)


async def memory_search(ctx: HandlerContext, params: MemorySearchParams) -> MemorySearchResult:
    """Keyword search, as the memory_search tool does it."""
    store = _store(ctx)
    try:
        hits = await asyncio.to_thread(search, store, params.query, params.limit or DEFAULT_LIMIT)
    except MemoryInputError as exc:
        raise E.InvalidParamsError(f"invalid params: query: {exc}") from None
    return MemorySearchResult(hits=[MemoryHit(path=h.path, line=h.line, text=h.text) for h in hits])


async def memory_add(ctx: HandlerContext, params: MemoryAddParams) -> MemoryAddResult:
    """Append one memory (the user asked for it, so no approval)."""
    store = _store(ctx)
    try:
        scope = parse_scope(params.scope)
        added = await asyncio.to_thread(store.add, params.content, scope)
    except MemoryInputError as exc:
        raise E.InvalidParamsError(f"invalid params: {exc}") from None
    except MemoryBusyError as exc:
        raise E.InternalError(str(exc), retryable=True) from None
    return MemoryAddResult(path=added.path, scope=str(added.scope))


async def memory_init(ctx: HandlerContext, params: MemoryInitParams) -> MemoryInitResult:
    """Write the USER.md template (gg init); an existing file needs force."""
    values = dict(zip(KNOWN_KEYS, _values(params), strict=True))
    path = ctx.services.home / PROFILE_FILE
    written = await asyncio.to_thread(write_profile, path, values, params.force)
    if not written:
        raise E.InvalidActionError(
            f"{PROFILE_FILE} already exists; edit it, or pass force (gg init --force) to replace it"
        )
    return MemoryInitResult(path=PROFILE_FILE, empty=[k for k in KNOWN_KEYS if not values[k]])


def _values(p: MemoryInitParams) -> list[str]:
    return [" ".join((v or "").split()) for v in (p.name, p.call_me, p.timezone, p.language)]


HANDLERS: dict[str, Any] = {
    "gg/memory.show": memory_show,
    "gg/memory.search": memory_search,
    "gg/memory.add": memory_add,
    "gg/memory.init": memory_init,
}

__all__ = ["HANDLERS", "memory_add", "memory_init", "memory_search", "memory_show"]
