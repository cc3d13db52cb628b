"""LSP base-protocol framing (Content-Length headers) as pure functions over bytes."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_MESSAGE_BYTES", "FrameDecoder", "FramingError", "encode"]

# Matches the daemon's limit: a bigger frame is a broken or hostile peer, not a message.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_HEADER_END = b"\r\n\r\n"
_MAX_HEADER_BYTES = 8192


class FramingError(Exception):
    """The byte stream is not valid Content-Length framing or a frame is not JSON."""


def encode(message: Any) -> bytes:
    """Frame one JSON-RPC message with its Content-Length header."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameDecoder:
    """Incremental decoder: feed raw bytes, get back every complete message."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._need: int | None = None

    def feed(self, data: bytes) -> list[Any]:
        """Add bytes and return the messages completed by them, in order."""
        self._buf += data
        out: list[Any] = []
        while True:
            if self._need is None:
                end = self._buf.find(_HEADER_END)
                if end < 0:
                    if len(self._buf) > _MAX_HEADER_BYTES:
                        raise FramingError("header too long")
                    return out
                self._need = _parse_headers(bytes(self._buf[:end]))
                del self._buf[: end + len(_HEADER_END)]
            if len(self._buf) < self._need:
                return out
            body = bytes(self._buf[: self._need])
            del self._buf[: self._need]
            self._need = None
            try:
                out.append(json.loads(body.decode("utf-8")))
            except (UnicodeDecodeError, ValueError) as exc:
                raise FramingError("frame body is not JSON") from exc

    @property
    def pending(self) -> int:
        """Bytes buffered that do not yet form a complete message."""
        return len(self._buf)


def _parse_headers(raw: bytes) -> int:
    length: int | None = None
    for line in raw.split(b"\r\n"):
        if not line:
            continue
        name, sep, value = line.partition(b":")
        if not sep:
            raise FramingError("malformed header line")
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError as exc:
                raise FramingError("bad Content-Length") from exc
    if length is None or length < 0:
        raise FramingError("missing Content-Length")
    if length > MAX_MESSAGE_BYTES:
        raise FramingError("frame too large")
    return length
