"""image_generate, tts and stt."""

from __future__ import annotations

from typing import Any

from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .client import IMAGE_SIZES, VOICES, MediaRequestError
from .service import MediaService


def _str(args: dict[str, Any], key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str):
        raise ToolError(f"argument '{key}' must be a string")
    return value


class ImageGenerate(Tool):
    """Generate an image (asks first: it costs money)."""

    name = "image_generate"
    deferred = True
    description = "Generate an image from a prompt. Asks the user first (it costs money)."
    parameters = {
        "type": "object",
        "properties": {
            "prompt": {"type": "string"},
            "size": {"type": "string", "enum": list(IMAGE_SIZES)},
        },
        "required": ["prompt"],
    }

    def __init__(self, svc: MediaService) -> None:
        self.svc = svc

    def summary(self, args: dict[str, Any]) -> str:
        return f"image_generate {str(args.get('prompt', ''))[:80]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        size = args.get("size", "1024x1024")
        return ApprovalInfo(
            summary=self.summary(args),
            details=f"generate a {size} image (a paid request) from:\n{args.get('prompt', '')}",
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            item = await self.svc.image(_str(args, "prompt"), _str(args, "size", "1024x1024"))
        except MediaRequestError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(
            output=f"image saved as media {item.id} ({item.mime}, {item.size} bytes)",
            details={"mediaId": item.id, "mime": item.mime},
        )


class Tts(Tool):
    """Speak text to a WAV."""

    name = "tts"
    deferred = True
    description = "Turn text into speech (WAV) kept as media."
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "voice": {"type": "string", "enum": list(VOICES)},
        },
        "required": ["text"],
    }

    def __init__(self, svc: MediaService) -> None:
        self.svc = svc

    def summary(self, args: dict[str, Any]) -> str:
        return f"tts ({len(str(args.get('text', '')))} chars)"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary=self.summary(args), risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            item = await self.svc.tts(_str(args, "text"), _str(args, "voice", "alloy"))
        except MediaRequestError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(
            output=f"speech saved as media {item.id} ({item.size} bytes, WAV)",
            details={"mediaId": item.id, "mime": item.mime},
        )


class Stt(Tool):
    """Transcribe an audio file of the workspace or a stored media item."""

    name = "stt"
    deferred = True
    description = "Transcribe an audio file (a workspace path, or a media id like m_...)."
    parameters = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }

    def __init__(self, svc: MediaService) -> None:
        self.svc = svc

    def summary(self, args: dict[str, Any]) -> str:
        return f"stt {str(args.get('path', ''))[:120]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary=self.summary(args), risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw = _str(args, "path")
        try:
            if raw.startswith("m_") and "/" not in raw:
                text = await self.svc.stt_media(raw)
            else:
                text = await self.svc.stt_path(raw, ctx.workspace)
        except MediaRequestError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(output=text or "(no speech recognised)")
