"""Images a prompt or the `read` tool hands to a model: checked, downscaled, stored by content.

Every image is normalised once on the way in (one of the four formats every model API takes,
at most MAX_EDGE pixels on its long side and MAX_STORED_BYTES encoded), then written to
GG_HOME/images/<sha256 of the stored bytes> (folder 0700, files 0600). The same picture
attached twice is one file; a session's JSONL refers to it by id (`img_<sha256>`), and the
bytes are read back for each model request (docs/session-format.md).

Synchronous: the daemon calls it from a worker thread.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Pillow is imported when an image arrives, not at daemon start
    from PIL.Image import Image as Bitmap

# What every model API takes as an image block (OpenAI, Anthropic, Gemini), by Pillow format.
MIME_OF = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
# Pillow's name for a phone camera's multi-picture JPEG: a JPEG to every reader and API.
_ALIASES = {"MPO": "JPEG"}
IMAGE_MIMES = frozenset(MIME_OF.values())
# Read at most this much from a file or a client before refusing it.
MAX_INPUT_BYTES = 20 * 1024 * 1024
# A decoded bitmap larger than this is refused before it is decoded (decompression bombs).
MAX_INPUT_PIXELS = 50_000_000
# Long side after downscaling: what the APIs keep anyway (OpenAI 2048, Anthropic ~1568).
MAX_EDGE = 2048
# Encoded size after downscaling: Anthropic refuses images over 5 MB of base64.
MAX_STORED_BYTES = 3_750_000
# What a model request counts an image as, for the context estimate (~1.2 megapixels).
IMAGE_TOKENS = 1600
_ID = re.compile(r"^img_([0-9a-f]{64})$")
_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/gif": ".gif"}


class ImageError(Exception):
    """An image gg cannot take: too large, not an image, a format models do not read."""

    def __init__(self, message: str, code: str = "invalid_image") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class ImageRef:
    """A stored image as messages refer to it: id, type and size in pixels and bytes."""

    id: str
    mime: str
    width: int
    height: int
    size: int

    def wire(self) -> dict[str, Any]:
        """The JSON form kept in a message's `images` list and shown to clients."""
        return {
            "id": self.id,
            "mimeType": self.mime,
            "width": self.width,
            "height": self.height,
            "size": self.size,
        }


def mime_of_name(name: str) -> str | None:
    """The image MIME type a file name's suffix claims, or None for other files."""
    suffix = Path(name).suffix.lower()
    return {".jpeg": "image/jpeg"}.get(suffix) or next(
        (m for m, s in _SUFFIX.items() if s == suffix), None
    )


def _sniff(data: bytes) -> str | None:
    """The MIME type of stored bytes from their magic numbers."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def normalize(data: bytes) -> tuple[bytes, str, int, int]:
    """(bytes, mime, width, height) of an image a model can take; ImageError when it cannot be.

    Kept as is when it already fits; otherwise scaled to MAX_EDGE (PNG stays PNG, GIF becomes
    its first frame as PNG) and, when still over MAX_STORED_BYTES, re-encoded as JPEG.
    """
    if len(data) > MAX_INPUT_BYTES:
        raise ImageError(
            f"the image is {_mib(len(data))}; the limit is {_mib(MAX_INPUT_BYTES)}",
            "image_too_large",
        )
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # Pillow warns past ~89 megapixels; MAX_INPUT_PIXELS below is the limit here.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))  # reads the header only
            fmt = _ALIASES.get(img.format or "", img.format or "")
            width, height = img.size
    except Image.DecompressionBombError:
        raise ImageError(
            f"the image has too many pixels; the limit is {MAX_INPUT_PIXELS:,} pixels",
            "image_too_large",
        ) from None
    except UnidentifiedImageError:
        raise ImageError(
            "not an image gg can read (use PNG, JPEG, WebP or GIF)", "unsupported_image"
        ) from None
    except (OSError, ValueError) as exc:
        raise ImageError(f"the image is damaged ({exc})", "invalid_image") from None
    if fmt not in MIME_OF:
        raise ImageError(
            f"{fmt or 'this'} images are not supported: models take PNG, JPEG, WebP or GIF",
            "unsupported_image",
        )
    if width * height > MAX_INPUT_PIXELS:
        raise ImageError(
            f"the image is {width}x{height} pixels; the limit is {MAX_INPUT_PIXELS:,} pixels",
            "image_too_large",
        )
    if max(width, height) <= MAX_EDGE and len(data) <= MAX_STORED_BYTES:
        return data, MIME_OF[fmt], width, height
    try:
        return _shrink(img, fmt)
    except (OSError, ValueError) as exc:
        raise ImageError(f"the image is damaged ({exc})", "invalid_image") from None


def _shrink(img: Bitmap, fmt: str) -> tuple[bytes, str, int, int]:
    from PIL import Image, ImageOps

    img.seek(0)  # the first frame of an animation
    # A camera's EXIF rotation applied now: re-encoding drops the tag that said it.
    frame = ImageOps.exif_transpose(img)
    frame = frame.convert("RGBA") if frame.mode in ("P", "LA", "PA") else frame
    if frame.mode not in ("RGB", "RGBA", "L"):
        frame = frame.convert("RGB")
    frame.thumbnail((MAX_EDGE, MAX_EDGE), Image.Resampling.LANCZOS)
    out_fmt = "JPEG" if fmt == "JPEG" else "WEBP" if fmt == "WEBP" else "PNG"
    data = _encode(frame, out_fmt)
    if len(data) > MAX_STORED_BYTES and out_fmt != "JPEG":
        out_fmt, data = "JPEG", _encode(frame, "JPEG")
    if len(data) > MAX_STORED_BYTES:
        raise ImageError(
            f"the image is still {_mib(len(data))} after downscaling to {frame.width}x"
            f"{frame.height}; the limit is {_mib(MAX_STORED_BYTES)}",
            "image_too_large",
        )
    return data, MIME_OF[out_fmt], frame.width, frame.height


def _encode(frame: Bitmap, fmt: str) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    if fmt == "JPEG":
        if frame.mode == "RGBA":  # JPEG has no alpha: flatten onto white, as viewers show it
            flat = Image.new("RGB", frame.size, (255, 255, 255))
            flat.paste(frame, mask=frame.getchannel("A"))
            frame = flat
        frame.save(buf, "JPEG", quality=85, optimize=True)
    elif fmt == "WEBP":
        frame.save(buf, "WEBP", quality=90)
    else:
        frame.save(buf, "PNG")  # optimize=True costs seconds for a few percent
    return buf.getvalue()


def read_image_file(path: Path, shown: str) -> bytes:
    """The bytes of an image file, bounded by MAX_INPUT_BYTES; ImageError names `shown`."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise ImageError(f"image file not found: {shown!r}", "image_not_found") from None
    except IsADirectoryError:
        raise ImageError(f"{shown!r} is a directory, not an image", "invalid_image") from None
    except OSError as exc:
        raise ImageError(f"cannot read image {shown!r}: {exc.strerror}", "invalid_image") from None
    if len(data) > MAX_INPUT_BYTES:
        raise ImageError(
            f"image {shown!r} is over the limit of {_mib(MAX_INPUT_BYTES)}", "image_too_large"
        )
    return data


class ImageStore:
    """Images by content under GG_HOME/images; one file per distinct picture."""

    def __init__(self, home: Path) -> None:
        self.root = home / "images"

    def put(self, data: bytes) -> ImageRef:
        """Normalise and store an image (a no-op write when the same picture is stored)."""
        stored, mime, width, height = normalize(data)
        digest = hashlib.sha256(stored).hexdigest()
        path = self.root / digest
        if not path.is_file():
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.root.chmod(0o700)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=f".{digest}.")  # 0600
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(stored)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return ImageRef(f"img_{digest}", mime, width, height, len(stored))

    def read(self, image_id: str) -> tuple[bytes, str]:
        """(bytes, mime) of a stored image; ImageError when the id is unknown."""
        match = _ID.match(image_id)
        if match is None:
            raise ImageError(f"not an image id: {image_id[:80]!r}", "image_not_found")
        try:
            data = (self.root / match.group(1)).read_bytes()
        except OSError:
            raise ImageError(f"no stored image {image_id!r}", "image_not_found") from None
        return data, _sniff(data) or "application/octet-stream"

    def data_url(self, image_id: str) -> str:
        """The image as a `data:` URL, the form OpenAI image_url parts carry."""
        data, mime = self.read(image_id)
        return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def decode_base64(data: str) -> bytes:
    """Base64 (or a `data:...;base64,` URL) from a client; ImageError when it is not base64."""
    if data.startswith("data:"):
        _, _, data = data.partition(",")
    if len(data) > (MAX_INPUT_BYTES * 4) // 3 + 4:
        raise ImageError(
            f"the image is over the limit of {_mib(MAX_INPUT_BYTES)}", "image_too_large"
        )
    try:
        return base64.b64decode(data, validate=True)
    except ValueError:
        raise ImageError("image data is not valid base64", "invalid_image") from None


__all__ = [
    "IMAGE_MIMES",
    "IMAGE_TOKENS",
    "MAX_EDGE",
    "MAX_INPUT_BYTES",
    "MAX_STORED_BYTES",
    "ImageError",
    "ImageRef",
    "ImageStore",
    "decode_base64",
    "mime_of_name",
    "normalize",
    "read_image_file",
]
