"""Images attached to a prompt: `--image PATH`, `/image PATH`, a dropped path, `/paste`.

The CLI sends an image as its absolute path (the daemon reads, checks and downscales it; both
run on this machine), or a clipboard image as base64. Stdlib only, like the rest of ggcli.
"""

from __future__ import annotations

import base64
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif"})
# gg/run.start travels in one message of at most 4 MiB: base64 adds a third.
MAX_INLINE_BYTES = 2_900_000
# Clipboard readers, first found wins: Wayland, X11, macOS (pngpaste).
_CLIPBOARD = (
    ("wl-paste", ["wl-paste", "--no-newline", "--type", "image/png"]),
    ("xclip", ["xclip", "-selection", "clipboard", "-target", "image/png", "-out"]),
    ("pngpaste", ["pngpaste", "-"]),
)


class AttachError(Exception):
    """An image that cannot be attached; the message says why and what to do."""


def image_param(raw: str, cwd: Path | None = None) -> dict[str, Any]:
    """The gg/run.start `images` entry of a file named on the command line."""
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = (cwd or Path.cwd()) / path
    if not path.is_file():
        raise AttachError(f"no such image file: {raw}")
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        raise AttachError(f"{raw} is not a PNG, JPEG, WebP or GIF file")
    return {"path": str(path.resolve())}


def dropped_paths(line: str, cwd: Path | None = None) -> list[str]:
    """Image files a line names, as a terminal types a dropped file: quoted or escaped paths.

    Only words that are existing image files count, so ordinary text is never taken.
    """
    try:
        words = shlex.split(line)
    except ValueError:  # an unbalanced quote: ordinary text
        return []
    found: list[str] = []
    for word in words:
        if Path(word).suffix.lower() not in IMAGE_SUFFIXES:
            continue
        path = Path(word).expanduser()
        if not path.is_absolute():
            path = (cwd or Path.cwd()) / path
        if path.is_file():
            found.append(word)
    return found


def clipboard_image() -> dict[str, Any]:
    """The clipboard's image as a gg/run.start `images` entry (base64 PNG)."""
    for name, cmd in _CLIPBOARD:
        if shutil.which(name) is None:
            continue
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AttachError(f"{name} failed: {exc}") from None
        if done.returncode != 0 or not done.stdout:
            raise AttachError("the clipboard holds no image (copy one, or use /image PATH)")
        if len(done.stdout) > MAX_INLINE_BYTES:
            raise AttachError(
                "the clipboard image is over 2.9 MB: save it to a file and use /image PATH"
            )
        return {"data": base64.b64encode(done.stdout).decode("ascii"), "mimeType": "image/png"}
    raise AttachError(
        "no clipboard reader found (install wl-clipboard, xclip or pngpaste), "
        "or save the image and use /image PATH"
    )


def describe(images: list[dict[str, Any]]) -> str:
    """`shot.png, clipboard image`: what is attached, for a note."""
    return ", ".join(Path(i["path"]).name if "path" in i else "clipboard image" for i in images)


__all__ = [
    "IMAGE_SUFFIXES",
    "AttachError",
    "clipboard_image",
    "describe",
    "dropped_paths",
    "image_param",
]
