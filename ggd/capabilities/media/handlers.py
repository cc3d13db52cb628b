"""Handlers of the media rows."""

from __future__ import annotations

import base64
import binascii

from ggd.app import HandlerContext
from ggd.protocol import errors as E

from .client import MediaRequestError
from .config import MediaConfig, resolve
from .protocol import (
    MediaImageParams,
    MediaItemResult,
    MediaSttParams,
    MediaSttResult,
    MediaTtsParams,
)
from .service import AUDIO_TYPES, MediaService


def _service(ctx: HandlerContext) -> MediaService:
    cfg = ctx.section(MediaConfig)
    eps = {k: resolve(k, getattr(cfg, k), ctx.env) for k in ("image", "tts", "stt")}
    return MediaService(ctx.services.home, eps)


def _unavailable(exc: MediaRequestError) -> E.GgError:
    if "no " in str(exc) and "configured" in str(exc):
        return E.CapabilityUnavailableError(str(exc))
    return E.InvalidParamsError(f"invalid params: {exc}")


async def media_image(ctx: HandlerContext, params: MediaImageParams) -> MediaItemResult:
    """Generate an image."""
    try:
        item = await _service(ctx).image(params.prompt, params.size)
    except MediaRequestError as exc:
        raise _unavailable(exc) from None
    return MediaItemResult(media_id=item.id, mime=item.mime, size=item.size)


async def media_tts(ctx: HandlerContext, params: MediaTtsParams) -> MediaItemResult:
    """Speak text."""
    try:
        item = await _service(ctx).tts(params.text, params.voice)
    except MediaRequestError as exc:
        raise _unavailable(exc) from None
    return MediaItemResult(media_id=item.id, mime=item.mime, size=item.size)


async def media_stt(ctx: HandlerContext, params: MediaSttParams) -> MediaSttResult:
    """Transcribe audio given by media id, base64 data or (local clients only) a path."""
    given = [x for x in (params.media_id, params.data, params.path) if x is not None]
    if len(given) != 1:
        raise E.InvalidParamsError("invalid params: give exactly one of mediaId, data, path")
    svc = _service(ctx)
    try:
        if params.media_id is not None:
            text = await svc.stt_media(params.media_id)
        elif params.path is not None:
            if ctx.remote:
                raise E.InvalidParamsError(
                    "invalid params: path: only local clients may send paths"
                )
            text = await svc.stt_path(params.path, ctx.workspace.root)
        else:
            try:
                audio = base64.b64decode(params.data or "", validate=True)
            except (binascii.Error, ValueError):
                raise E.InvalidParamsError("invalid params: data: not base64") from None
            suffix = "." + params.filename.rsplit(".", 1)[-1].lower()
            mime = AUDIO_TYPES.get(suffix, "audio/mpeg")
            text = await svc.stt(audio, params.filename, mime)
    except MediaRequestError as exc:
        raise _unavailable(exc) from None
    return MediaSttResult(text=text)


HANDLERS = {
    "gg/media.image": media_image,
    "gg/media.tts": media_tts,
    "gg/media.stt": media_stt,
}
