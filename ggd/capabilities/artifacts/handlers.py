"""Request handlers of gg/artifact.* and gg/library.*: the stores, off the event loop."""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import stat
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ggd.app import Handler, HandlerContext
from ggd.protocol import errors as E
from ggd.protocol.session import EmptyResult

from . import protocol as P
from .artifact_store import ArtifactMeta, ArtifactStore
from .library_store import LibraryItem as StoredItem
from .library_store import LibraryStore
from .publish import publish


def artifact_dto(meta: ArtifactMeta) -> P.Artifact:
    """The wire shape of artifact.json."""
    return P.Artifact.model_validate(asdict(meta))


def item_dto(item: StoredItem) -> P.LibraryItem:
    """The wire shape of an index.json entry."""
    return P.LibraryItem.model_validate(asdict(item))


def _artifacts(ctx: HandlerContext) -> ArtifactStore:
    return ArtifactStore(ctx.services.home)


def _library(ctx: HandlerContext) -> LibraryStore:
    return LibraryStore(ctx.services.home)


async def artifact_list(ctx: HandlerContext, _params: Any) -> P.ArtifactListResult:
    """gg/artifact.list"""
    metas = await asyncio.to_thread(_artifacts(ctx).list_all)
    return P.ArtifactListResult(artifacts=[artifact_dto(m) for m in metas])


async def artifact_get(ctx: HandlerContext, params: P.ArtifactGetParams) -> P.ArtifactView:
    """gg/artifact.get"""
    store = _artifacts(ctx)

    def read() -> tuple[ArtifactMeta, int, str]:
        meta = store.get(params.artifact_id)
        version = params.version or meta.version
        return meta, version, store.content(meta, version)

    meta, version, content = await asyncio.to_thread(read)
    return P.ArtifactView(artifact=artifact_dto(meta), version=version, content=content)


async def artifact_versions(
    ctx: HandlerContext, params: P.ArtifactIdParams
) -> P.ArtifactVersionsResult:
    """gg/artifact.versions"""
    versions = await asyncio.to_thread(_artifacts(ctx).versions, params.artifact_id)
    return P.ArtifactVersionsResult(
        versions=[P.ArtifactVersion.model_validate(asdict(v)) for v in versions]
    )


async def artifact_publish(ctx: HandlerContext, params: P.ArtifactIdParams) -> P.PublishResult:
    """gg/artifact.publish"""
    done = await asyncio.to_thread(publish, _artifacts(ctx), _library(ctx), params.artifact_id)
    return P.PublishResult(artifact=artifact_dto(done.artifact), item=item_dto(done.item))


async def artifact_remove(ctx: HandlerContext, params: P.ArtifactIdParams) -> EmptyResult:
    """gg/artifact.remove"""
    await asyncio.to_thread(_artifacts(ctx).remove, params.artifact_id)
    return EmptyResult()


async def library_list(ctx: HandlerContext, _params: Any) -> P.LibraryListResult:
    """gg/library.list"""
    lib = _library(ctx)
    items = await asyncio.to_thread(lib.items)
    return P.LibraryListResult(
        items=[item_dto(i) for i in items], path=None if ctx.remote else str(lib.root)
    )


async def library_add(ctx: HandlerContext, params: P.LibraryAddParams) -> P.LibraryAddResult:
    """gg/library.add"""
    lib = _library(ctx)
    if params.content is not None:
        try:
            data = base64.b64decode(params.content, validate=True)
        except (binascii.Error, ValueError):
            raise E.InvalidParamsError("invalid params: content must be base64") from None
        if len(data) > P.MAX_TRANSFER_BYTES:
            raise E.InvalidParamsError(
                "invalid params: an upload through the protocol holds at most 2 MiB; "
                "add larger files with `gg library add PATH` on the daemon's machine"
            )
        item = await asyncio.to_thread(lib.add_bytes, params.name or "", data, "upload")
        return P.LibraryAddResult(item=item_dto(item))
    if ctx.remote:
        raise E.InvalidParamsError(
            "invalid params: adding by path is only for clients on the daemon's machine; "
            "upload the content instead"
        )
    src = Path(params.path or "")
    if not src.is_absolute():
        raise E.InvalidParamsError("invalid params: path must be absolute")
    item = await asyncio.to_thread(_add_path, lib, src, params.name or src.name)
    return P.LibraryAddResult(item=item_dto(item))


def _add_path(lib: LibraryStore, src: Path, name: str) -> StoredItem:
    # O_NONBLOCK: opening a FIFO must not hang a worker thread; only regular files are taken.
    # Their size is not trusted either: the copy counts what it reads.
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise E.InvalidParamsError("invalid params: no file at that path") from None
    except OSError as exc:
        raise E.InvalidParamsError(
            f"invalid params: cannot read that file ({exc.strerror})"
        ) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a folder; add a file" if stat.S_ISDIR(mode) else "not a regular file"
        raise E.InvalidParamsError(f"invalid params: that path is {what}")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as fh:
        return lib.add_stream(name, fh, "file")


async def library_get(ctx: HandlerContext, params: P.LibraryGetParams) -> P.LibraryGetResult:
    """gg/library.get"""
    lib = _library(ctx)

    def read() -> tuple[StoredItem, bytes, bool]:
        item = lib.get(params.item_id)
        if params.offset > item.size:
            raise E.InvalidParamsError(
                f"invalid params: offset: {params.offset} is past the end of library item "
                f"{item.id} ({item.size} bytes)"
            )
        try:
            with open(lib.path(item), "rb") as fh:
                fh.seek(params.offset)
                data = fh.read(P.MAX_TRANSFER_BYTES)
                eof = fh.tell() >= item.size or not fh.read(1)
        except FileNotFoundError:
            raise E.InvalidParamsError(
                f"invalid params: the file of library item {item.id} is gone; remove the item"
            ) from None
        return item, data, eof

    item, data, eof = await asyncio.to_thread(read)
    return P.LibraryGetResult(
        item=item_dto(item),
        content=base64.b64encode(data).decode("ascii"),
        offset=params.offset,
        eof=eof,
    )


async def library_remove(ctx: HandlerContext, params: P.LibraryIdParams) -> EmptyResult:
    """gg/library.remove"""
    await asyncio.to_thread(_library(ctx).remove, params.item_id)
    return EmptyResult()


HANDLERS: dict[str, Handler] = {
    P.ARTIFACT_LIST.name: artifact_list,
    P.ARTIFACT_GET.name: artifact_get,
    P.ARTIFACT_VERSIONS.name: artifact_versions,
    P.ARTIFACT_PUBLISH.name: artifact_publish,
    P.ARTIFACT_REMOVE.name: artifact_remove,
    P.LIBRARY_LIST.name: library_list,
    P.LIBRARY_ADD.name: library_add,
    P.LIBRARY_GET.name: library_get,
    P.LIBRARY_REMOVE.name: library_remove,
}
