"""Publish: copy an artifact's latest version into the library, then mark it published.

Optimistic, without holding both locks: the bytes go into the library first (source
`artifact:<id>`), then publishedVersion advances only if the artifact is still at the copied
version. If it moved on (an edit raced the publish) or vanished, the copy is removed again and
the caller gets version_changed (or artifact_not_found) to retry; if that removal fails too,
both failures are reported together.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from ggd.protocol import errors as E

from .artifact_store import ArtifactMeta, ArtifactStore
from .library_store import LibraryItem, LibraryStore

log = logging.getLogger("ggd.capabilities.artifacts")
_UNSAFE = re.compile(r"[^\w .()+-]+")


@dataclass
class Published:
    """What a publish did."""

    artifact: ArtifactMeta
    item: LibraryItem


def library_name(meta: ArtifactMeta) -> str:
    """A file name for the library copy: the title made safe, plus the type's extension."""
    stem = _UNSAFE.sub("-", meta.title).strip(" .-")[:120] or meta.id
    return f"{stem}.{meta.ext}"


def publish(
    artifacts: ArtifactStore,
    library: LibraryStore,
    artifact_id: str,
    *,
    after_copy: Callable[[], None] | None = None,
) -> Published:
    """Copy the latest version in, then advance publishedVersion if nothing changed meanwhile.

    `after_copy` runs between the two steps (tests use it to race an edit deterministically).
    """
    meta = artifacts.get(artifact_id)
    version = meta.version
    data = artifacts.version_path(meta, version).read_bytes()
    item = library.add_bytes(library_name(meta), data, f"artifact:{artifact_id}")
    try:
        if after_copy is not None:
            after_copy()
        marked = artifacts.mark_published(artifact_id, version)
    except BaseException as exc:
        _compensate(library, item, exc)
        raise
    return Published(marked, item)


def _compensate(library: LibraryStore, item: LibraryItem, original: BaseException) -> None:
    """Remove the copy; if that fails, raise one error that carries both failures."""
    try:
        library.remove(item.id)
    except Exception as comp:
        log.error(
            "publish compensation failed",
            extra={"item": item.id, "original": type(original).__name__},
            exc_info=True,
        )
        first = original.message if isinstance(original, E.GgError) else type(original).__name__
        second = comp.message if isinstance(comp, E.GgError) else type(comp).__name__
        raise E.InternalError(
            f"publish failed ({first}) and its library copy {item.name!r} could not be removed "
            f"({second}); remove it with `gg library remove {item.id}`"
        ) from original
