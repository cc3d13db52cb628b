"""MCP tool results as gg tool results: text joined, media saved by id, structured content kept."""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
from pathlib import Path
from typing import Any

from ggd.app.events import cap_details
from ggd.app.files import write_private
from ggd.tools import ToolResult

MEDIA_DIR = "media"
MAX_OUTPUT_CHARS = 100_000
_EXT = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
    "application/pdf": ".pdf",
}


def save_media(home: Path, data: bytes, mime: str) -> str:
    """Store bytes under GG_HOME/media (0700 dir, 0600 file) and return their media id."""
    folder = home / MEDIA_DIR
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    media_id = "m_" + secrets.token_hex(8)
    write_private(folder / f"{media_id}{_EXT.get(mime, '.bin')}", data)
    return media_id


def media_path(home: Path, media_id: str) -> Path | None:
    """The file of a media id, or None (ids are checked, so a caller cannot escape the folder)."""
    if not (media_id.startswith("m_") and media_id[2:].isalnum()):
        return None
    for path in (home / MEDIA_DIR).glob(f"{media_id}.*"):
        return path
    return None


def _blob(home: Path, data: str, mime: str, label: str, media: list[dict[str, Any]]) -> str:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"[{label}: undecodable base64 data dropped]"
    media_id = save_media(home, raw, mime)
    media.append({"id": media_id, "mimeType": mime, "bytes": len(raw)})
    return f"[{label} {mime}, {len(raw)} bytes, saved as media {media_id}]"


def convert(home: Path, server: str, tool: str, result: Any) -> ToolResult:
    """A CallToolResult as a ToolResult (blocking: writes media files; run it off the loop)."""
    parts: list[str] = []
    media: list[dict[str, Any]] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind in ("image", "audio"):
            parts.append(_blob(home, block.data, block.mime_type, kind, media))
        elif kind == "resource":
            res = block.resource
            text = getattr(res, "text", None)
            if text is not None:
                parts.append(f"[resource {res.uri}]\n{text}")
            else:
                mime = getattr(res, "mime_type", None) or "application/octet-stream"
                parts.append(_blob(home, res.blob, mime, f"resource {res.uri}", media))
        elif kind == "resource_link":
            parts.append(
                f"[resource link {block.uri}" + (f": {block.name}]" if block.name else "]")
            )
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    structured = getattr(result, "structured_content", None)
    text = "\n".join(parts)
    if structured is not None:
        encoded = json.dumps(structured, ensure_ascii=False, indent=2)
        if not _same_json(text, structured):
            text = (text + "\n\n" if text else "") + "structuredContent:\n" + encoded
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n[output truncated at {MAX_OUTPUT_CHARS} characters]"
    details: dict[str, Any] = {"server": server, "tool": tool}
    if structured is not None:
        details["structuredContent"] = structured
    if media:
        details["media"] = media
    is_error = bool(getattr(result, "is_error", False))
    if is_error and not text:
        text = f"{tool} failed (the MCP server gave no message)"
    # Cut here, off the event loop, rather than when the event is built (a 10 MB value costs
    # about 0.2 s to measure and cut); the model's copy is the bounded text above.
    return ToolResult(output=text or "(no output)", is_error=is_error, details=cap_details(details))


def _same_json(text: str, value: Any) -> bool:
    """Whether the text content already is the structured content (servers often send both)."""
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


__all__ = ["MEDIA_DIR", "convert", "media_path", "save_media"]
