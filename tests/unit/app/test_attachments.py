"""ggd.app.attachments: a prompt's images from paths or base64, with errors naming the image."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from ggd.app.attachments import store_images
from ggd.protocol import errors as E
from ggd.protocol.run import ImageInput
from ggd.tools.images import ImageStore


def png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (6, 4), (1, 2, 3)).save(buf, "PNG")
    return buf.getvalue()


def test_paths_resolve_in_the_workspace_and_base64_is_decoded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "shots").mkdir(parents=True)
    (ws / "shots" / "a.png").write_bytes(png())
    store = ImageStore(tmp_path / "home")
    items = [
        ImageInput(path="shots/a.png"),
        ImageInput(path=str(ws / "shots" / "a.png")),
        ImageInput(data=base64.b64encode(png()).decode(), mime_type="image/png"),
    ]
    refs = store_images(store, items, ws, remote=False)
    assert len({r["id"] for r in refs}) == 1
    assert refs[0] == {**refs[0], "mimeType": "image/png", "width": 6, "height": 4}


def test_a_remote_connection_cannot_name_files(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png())
    with pytest.raises(E.InvalidParamsError, match=r"images\[0\]\.path is refused over a remote"):
        store_images(ImageStore(tmp_path), [ImageInput(path="a.png")], tmp_path, remote=True)


def test_errors_name_the_image_and_never_the_full_path(tmp_path: Path) -> None:
    store = ImageStore(tmp_path)
    good = ImageInput(data=base64.b64encode(png()).decode())
    with pytest.raises(E.InvalidParamsError) as info:
        store_images(
            store, [good, ImageInput(path=str(tmp_path / "x" / "gone.png"))], tmp_path, remote=False
        )
    assert info.value.message == "invalid params: images[1]: image file not found: 'gone.png'"
    with pytest.raises(E.InvalidParamsError, match=r"images\[0\]: give either path or data"):
        store_images(store, [ImageInput()], tmp_path, remote=False)
