"""Large ACP image blocks handed to the local ggd as files, not inline in one message.

ggd takes a JSON-RPC message of at most 4 MiB, and a screenshot's base64 easily passes that.
`ggd --acp` runs on the daemon's machine, so it writes such an image to a private temporary
folder and sends its path; ggd reads, checks, downscales and stores it while `gg/run.start` is
answered, after which the folder is removed.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Inline up to this much base64 (the rest of gg/run.start stays far below 4 MiB).
INLINE_CHARS = 1_000_000
_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/gif": ".gif"}


@contextlib.contextmanager
def staged(images: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """gg/run.start `images` with big base64 entries replaced by `{path}` of a private file."""
    if not any(len(i.get("data", "")) > INLINE_CHARS for i in images):
        yield images
        return
    with tempfile.TemporaryDirectory(prefix="gg-acp-images-") as folder:  # 0700
        out: list[dict[str, Any]] = []
        for n, item in enumerate(images):
            data = str(item.get("data", ""))
            if len(data) <= INLINE_CHARS:
                out.append(item)
                continue
            try:
                raw = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                out.append(item)  # ggd says it is not base64, naming the image
                continue
            path = Path(folder) / f"image-{n}{_SUFFIX.get(str(item.get('mimeType')), '.png')}"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(raw)
            out.append({"path": str(path)})
        yield out


__all__ = ["INLINE_CHARS", "staged"]
