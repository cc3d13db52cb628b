"""Pure functions between bytes and JSON-RPC messages: LSP Content-Length framing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
_MAX_HEADER_BYTES = 8 * 1024


@dataclass(frozen=True)
class Oversized:
    """A message whose body exceeded the limit; its bytes were skipped to stay in sync."""

    size: int


@dataclass(frozen=True)
class BadHeader:
    """A header block without a usable Content-Length; the stream cannot be resynchronised."""

    reason: str


def encode(body: bytes) -> bytes:
    """Frame one message body."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class HeaderTable(dict[int, bytes]):
    """A framing's headers by body length, built on first use.

    `join` frames a whole loop pass of messages with the lookups, the interleaving and the join
    all done in C (a dict subclass's `__getitem__` only calls back into Python on a miss).
    """

    def __init__(self, make: Callable[[int], bytes], limit: int = 4096) -> None:
        super().__init__()
        self.make = make
        self.limit = limit

    def __missing__(self, n: int) -> bytes:
        if len(self) >= self.limit:  # bounded: message lengths vary without end
            self.clear()
        header = self[n] = self.make(n)
        return header

    def join(self, bodies: list[bytes]) -> bytes:
        """The bodies framed one by one, concatenated."""
        parts: list[bytes] = [b""] * (2 * len(bodies))
        parts[::2] = list(map(self.__getitem__, map(len, bodies)))
        parts[1::2] = bodies
        return b"".join(parts)


_HEADERS = HeaderTable(lambda n: b"Content-Length: %d\r\n\r\n" % n)
encode_many = _HEADERS.join


class ContentLengthDecoder:
    """Incremental decoder: feed bytes, get complete bodies, Oversized or BadHeader markers."""

    def __init__(self, max_size: int = MAX_MESSAGE_BYTES) -> None:
        self.max_size = max_size
        self._buf = bytearray()
        self._need: int | None = None
        self._skip = 0
        self.broken = False

    def feed(self, data: bytes) -> list[bytes | Oversized | BadHeader]:
        """Consume bytes; return every message completed by them."""
        out: list[bytes | Oversized | BadHeader] = []
        if self.broken:
            return out
        self._buf += data
        while True:
            if self._skip:
                n = min(self._skip, len(self._buf))
                del self._buf[:n]
                self._skip -= n
                if self._skip:
                    return out
            if self._need is None:
                end = self._buf.find(b"\r\n\r\n")
                if end < 0:
                    if len(self._buf) > _MAX_HEADER_BYTES:
                        self.broken = True
                        out.append(BadHeader("header block too long"))
                    return out
                header = bytes(self._buf[:end])
                del self._buf[: end + 4]
                length = _content_length(header)
                if length is None:
                    self.broken = True
                    out.append(BadHeader("missing or invalid Content-Length header"))
                    return out
                if length > self.max_size:
                    out.append(Oversized(length))
                    self._skip = length
                    continue
                self._need = length
            if len(self._buf) < self._need:
                return out
            body = bytes(self._buf[: self._need])
            del self._buf[: self._need]
            self._need = None
            out.append(body)


def _content_length(header: bytes) -> int | None:
    length: int | None = None
    for line in header.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if not sep:
            return None
        if name.strip().lower() == b"content-length":
            digits = value.strip()
            # ASCII digits only: int() would also take "+5", "5_0" and " ٥ ".
            if not digits.isdigit() or len(digits) > 12:
                return None
            if length is not None and int(digits) != length:
                return None  # two different lengths: no way to know where the body ends
            length = int(digits)
    return length
