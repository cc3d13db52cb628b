"""ggd.tools.images: format checks, downscaling, the content-addressed store."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest
from PIL import Image

from ggd.tools.images import (
    MAX_EDGE,
    MAX_STORED_BYTES,
    ImageError,
    ImageStore,
    decode_base64,
    normalize,
)


def encoded(img: Image.Image, fmt: str, **kw: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def noise(width: int, height: int, mode: str = "RGB") -> Image.Image:
    return Image.frombytes(mode, (width, height), os.urandom(width * height * len(mode)))


def test_a_small_image_is_kept_byte_for_byte() -> None:
    data = encoded(Image.new("RGB", (30, 20), (1, 2, 3)), "JPEG")
    assert normalize(data) == (data, "image/jpeg", 30, 20)


def test_a_wide_png_is_scaled_to_the_long_edge_and_stays_png() -> None:
    data = encoded(Image.new("RGBA", (4000, 1000), (0, 0, 255, 128)), "PNG")
    out, mime, w, h = normalize(data)
    assert (mime, w, h) == ("image/png", MAX_EDGE, 512)
    assert Image.open(io.BytesIO(out)).mode == "RGBA"  # transparency kept in a PNG


def test_a_png_too_heavy_after_scaling_becomes_a_jpeg_on_white() -> None:
    data = encoded(noise(2000, 1500, "RGBA"), "PNG")
    assert len(data) > MAX_STORED_BYTES
    out, mime, w, h = normalize(data)
    assert (mime, w, h) == ("image/jpeg", 2000, 1500)
    assert len(out) <= MAX_STORED_BYTES


def test_an_animated_gif_over_the_edge_becomes_its_first_frame() -> None:
    frames = [Image.new("P", (3000, 100), c) for c in (1, 2)]
    data = encoded(frames[0], "GIF", save_all=True, append_images=frames[1:])
    out, mime, w, h = normalize(data)
    assert (mime, w, h) == ("image/png", MAX_EDGE, 68)
    assert getattr(Image.open(io.BytesIO(out)), "n_frames", 1) == 1


@pytest.mark.parametrize(
    ("data", "code", "words"),
    [
        (encoded(Image.new("RGB", (4, 4)), "BMP"), "unsupported_image", "BMP images are not"),
        (encoded(Image.new("RGB", (4, 4)), "TIFF"), "unsupported_image", "TIFF images are not"),
        (b"plain text, not a picture", "unsupported_image", "not an image gg can read"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 40, "invalid_image", ""),
        (b"\0" * (21 * 1024 * 1024), "image_too_large", "limit is 20.0 MiB"),
    ],
)
def test_what_models_cannot_take_is_a_typed_error(data: bytes, code: str, words: str) -> None:
    with pytest.raises(ImageError) as info:
        normalize(data)
    assert info.value.code in (code, "unsupported_image"), info.value.message
    assert words in info.value.message


@pytest.mark.parametrize("side", [10000, 14000])  # over gg's limit; over Pillow's own too
def test_a_decompression_bomb_is_refused_before_decoding(side: int) -> None:
    # A PNG of one colour: tiny on disk, 100 or 196 megapixels decoded.
    data = encoded(Image.new("1", (side, side)), "PNG")
    assert len(data) < 200_000
    with pytest.raises(ImageError) as info:
        normalize(data)
    assert info.value.code == "image_too_large"
    assert "the limit is 50,000,000 pixels" in info.value.message


def test_the_store_writes_one_owner_only_file_per_picture(tmp_path: Path) -> None:
    store = ImageStore(tmp_path)
    data = encoded(Image.new("RGB", (5, 5), (9, 9, 9)), "PNG")
    a, b = store.put(data), store.put(data)
    assert a == b and a.id.startswith("img_") and len(a.id) == 68
    files = list((tmp_path / "images").iterdir())
    assert len(files) == 1
    assert stat.S_IMODE((tmp_path / "images").stat().st_mode) == 0o700
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert store.read(a.id) == (data, "image/png")
    assert store.data_url(a.id).startswith("data:image/png;base64,iVBOR")
    for bad in ("img_" + "0" * 64, "../etc/passwd", "img_../../x"):
        with pytest.raises(ImageError):
            store.read(bad)


def test_base64_from_clients() -> None:
    assert decode_base64("aGk=") == b"hi"
    assert decode_base64("data:image/png;base64,aGk=") == b"hi"
    with pytest.raises(ImageError, match="not valid base64"):
        decode_base64("%%%")


def test_a_rotated_camera_photo_is_scaled_upright() -> None:
    img = Image.new("RGB", (3000, 1000), (10, 10, 10))
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90 CW to display
    data = encoded(img, "JPEG", exif=exif.tobytes())
    _, mime, w, h = normalize(data)
    assert (mime, w, h) == ("image/jpeg", 683, MAX_EDGE)  # upright: taller than wide


def test_a_multi_picture_jpeg_from_a_phone_is_a_jpeg() -> None:
    img = Image.new("RGB", (40, 30), (200, 10, 10))
    data = encoded(img, "MPO", save_all=True, append_images=[Image.new("RGB", (40, 30))])
    assert Image.open(io.BytesIO(data)).format == "MPO"
    assert normalize(data) == (data, "image/jpeg", 40, 30)
