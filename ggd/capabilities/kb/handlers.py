"""Handlers of the gg/kb.* rows."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from ggd.app import HandlerContext
from ggd.protocol import errors as E
from ggd.protocol.base import Empty

from .config import KbConfig
from .embed import EmbedError
from .protocol import (
    KB_INDEX,
    KB_LIST,
    KB_PROGRESS,
    KB_REMOVE,
    KB_SEARCH,
    KbBase,
    KbHit,
    KbIndexParams,
    KbIndexResult,
    KbListResult,
    KbNameParams,
    KbProgress,
    KbSearchParams,
    KbSearchResult,
    KbSkipped,
)
from .service import KbService, to_gg
from .store import KbError


def service(ctx: HandlerContext) -> KbService:
    """A service for the daemon's home and the current config."""
    cfg = ctx.section(KbConfig)
    return KbService(ctx.services.home, cfg, os.environ)


async def kb_list(ctx: HandlerContext, params: Empty) -> KbListResult:
    """Every base."""
    svc = service(ctx)
    bases = [KbBase(**vars(i)) for i in await svc.list_bases()]
    return KbListResult(bases=bases, embeddings=svc.source, model=svc.model)


def _folder(ctx: HandlerContext, raw: str) -> Path:
    if "\x00" in raw:
        raise E.InvalidParamsError("invalid params: path: not a valid path")
    ws = ctx.workspace.root.resolve()
    p = Path(raw).expanduser()
    p = (p if p.is_absolute() else ws / p).resolve()
    if ctx.remote and not p.is_relative_to(ws):
        raise E.InvalidParamsError(
            "invalid params: path: remote clients may index only the workspace"
        )
    return p


async def kb_index(ctx: HandlerContext, params: KbIndexParams) -> KbIndexResult:
    """Index a folder, sending gg/kb.progress to the caller from the worker thread."""
    loop = asyncio.get_running_loop()

    def progress(p: dict[str, Any]) -> None:
        wire = KbProgress.model_validate(p).wire()
        loop.call_soon_threadsafe(ctx.notify, KB_PROGRESS.name, wire)

    try:
        s = await service(ctx).index(_folder(ctx, params.path), params.name, progress)
    except (KbError, EmbedError) as exc:
        raise to_gg(exc) from None
    return KbIndexResult(
        name=s.name,
        files=s.files,
        changed=s.changed,
        unchanged=s.unchanged,
        deleted=s.deleted,
        chunks=s.chunks,
        embedded=s.embedded,
        skipped=KbSkipped(
            ignored=s.skipped.get("ignored", 0),
            binary=s.skipped.get("binary", 0),
            too_big=s.skipped.get("tooBig", 0),
            private=s.skipped.get("private", 0),
            linked=s.skipped.get("linked", 0),
        ),
        model=s.model,
        seconds=s.seconds,
    )


async def kb_search(ctx: HandlerContext, params: KbSearchParams) -> KbSearchResult:
    """Search one base."""
    try:
        name, hits, used = await service(ctx).search(
            params.query, params.name, params.top_k, params.mode
        )
    except (KbError, EmbedError) as exc:
        raise to_gg(exc) from None
    return KbSearchResult(
        name=name,
        mode=used,
        hits=[
            KbHit(
                path=h.path,
                heading=h.heading,
                start_line=h.start_line,
                end_line=h.end_line,
                snippet=h.snippet,
                score=h.score,
            )
            for h in hits
        ],
    )


async def kb_remove(ctx: HandlerContext, params: KbNameParams) -> Empty:
    """Delete a base."""
    try:
        await service(ctx).remove(params.name)
    except KbError as exc:
        raise to_gg(exc) from None
    return Empty()


HANDLERS = {
    KB_LIST.name: kb_list,
    KB_INDEX.name: kb_index,
    KB_SEARCH.name: kb_search,
    KB_REMOVE.name: kb_remove,
}
