"""Images attached to a prompt: read or decoded, checked against the model, stored by content."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ggd.protocol import errors as E
from ggd.protocol.run import ImageInput
from ggd.tools.images import (
    ImageError,
    ImageStore,
    decode_base64,
    read_image_file,
)


def _load(item: ImageInput, n: int, root: Path, remote: bool) -> bytes:
    where = f"invalid params: images[{n}]"
    if (item.path is None) == (item.data is None):
        raise E.InvalidParamsError(f"{where}: give either path or data (base64)")
    if item.path is not None:
        if remote:
            # A remote client naming files would read the daemon's disk: send the bytes instead.
            raise E.InvalidParamsError(
                f"{where}.path is refused over a remote connection; send the image as data"
            )
        path = Path(item.path).expanduser()
        return read_image_file(path if path.is_absolute() else root / path, Path(item.path).name)
    assert item.data is not None
    return decode_base64(item.data)


def store_images(
    store: ImageStore, items: list[ImageInput], root: Path, *, remote: bool
) -> list[dict[str, Any]]:
    """The stored refs (ImageRef.wire()) of a prompt's images, in order; typed errors name
    the image (`images[1]: the image is 31.0 MiB; the limit is 20.0 MiB`)."""
    refs: list[dict[str, Any]] = []
    for n, item in enumerate(items):
        try:
            refs.append(store.put(_load(item, n, root, remote)).wire())
        except ImageError as exc:
            raise E.InvalidParamsError(f"invalid params: images[{n}]: {exc.message}") from None
    return refs


async def prompt_images(
    store: ImageStore, items: list[ImageInput] | None, root: Path, *, remote: bool
) -> list[dict[str, Any]] | None:
    """store_images off the event loop (decoding and downscaling take a while); None for none."""
    if not items:
        return None
    return await asyncio.to_thread(store_images, store, items, root, remote=remote)


async def stored_image(store: ImageStore, image_id: str) -> tuple[bytes, str]:
    """(bytes, mime) of a stored image for gg/image.get; invalid params when unknown."""
    try:
        return await asyncio.to_thread(store.read, image_id)
    except ImageError as exc:
        raise E.InvalidParamsError(f"invalid params: imageId: {exc.message}") from None


__all__ = ["prompt_images", "store_images", "stored_image"]
