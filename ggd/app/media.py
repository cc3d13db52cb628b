"""The media store: screenshots, generated images, speech and MCP images under GG_HOME/media.

Files are owner-only (0700 folder, 0600 files) and named by an opaque id; clients fetch them with
`gg/media.get {mediaId}` and never see a path. Several capabilities write here, so it is core.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from .files import write_private

MEDIA_LIMIT = 25 * 1024 * 1024
_ID = re.compile(r"^m_[0-9a-f]{16}$")
_EXT = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
    "image/gif": "gif",
    "audio/mpeg": "mp3",
    "audio/wav": "wav",
    "audio/ogg": "ogg",
    "audio/flac": "flac",
    "audio/mp4": "m4a",
    "audio/webm": "webm",
}


@dataclass(frozen=True)
class MediaItem:
    """One stored file: its id, MIME type, size and where it came from."""

    id: str
    mime: str
    size: int
    source: str
    created_at: int


class MediaError(Exception):
    """A media id that does not exist, or content over the limit."""


class MediaStore:
    """Content by opaque id; synchronous (call from a worker thread in the daemon)."""

    def __init__(self, home: Path) -> None:
        self.root = home / "media"

    def _prepare(self) -> None:
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.root.chmod(0o700)

    def save(self, data: bytes, mime: str, source: str) -> MediaItem:
        """Store bytes; returns the item (its id is what tools and clients see)."""
        if mime not in _EXT:
            raise MediaError(f"unsupported media type {mime!r}")
        if len(data) > MEDIA_LIMIT:
            raise MediaError(f"media over {MEDIA_LIMIT // 2**20} MiB")
        self._prepare()
        item = MediaItem(
            id="m_" + secrets.token_hex(8),
            mime=mime,
            size=len(data),
            source=source,
            created_at=int(time.time() * 1000),
        )
        write_private(self.root / f"{item.id}.{_EXT[mime]}", data)
        meta = {"mime": mime, "size": item.size, "source": source, "createdAt": item.created_at}
        write_private(self.root / f"{item.id}.json", json.dumps(meta).encode())
        return item

    def path(self, media_id: str) -> Path:
        """The file of an id (for tools inside the daemon only; never sent to clients)."""
        item = self.get(media_id)
        return self.root / f"{item.id}.{_EXT[item.mime]}"

    def get(self, media_id: str) -> MediaItem:
        """The metadata of an id; MediaError when unknown."""
        if not _ID.match(media_id):
            raise MediaError("not a media id")
        try:
            meta = json.loads((self.root / f"{media_id}.json").read_text())
        except (OSError, ValueError):
            raise MediaError(f"no media with id {media_id!r}") from None
        return MediaItem(media_id, meta["mime"], meta["size"], meta["source"], meta["createdAt"])

    def read(self, media_id: str) -> tuple[MediaItem, bytes]:
        """Metadata and bytes of an id."""
        item = self.get(media_id)
        try:
            return item, (self.root / f"{media_id}.{_EXT[item.mime]}").read_bytes()
        except OSError:
            raise MediaError(f"no media with id {media_id!r}") from None


__all__ = ["MEDIA_LIMIT", "MediaError", "MediaItem", "MediaStore"]
