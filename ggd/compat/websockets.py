"""websockets: write text frames gg built itself, bypassing websockets' per-message framing.

Server frames are unmasked and the listener negotiates no extension, so a text frame is a fixed
header plus the UTF-8 body. gg frames each fanned-out event once for every connection
(`ggd.rpc.connection.SharedFramer`) and a loop pass's events in one buffer; sending them through
`ServerConnection.send()` would build a websockets Frame per message per connection, which cost
more than the rest of an event's path (docs/benchmarks.md, fan-out). websockets has no public
call that takes prebuilt frames, so this writes them to the connection's transport inside
`send_context()`, the context its own `send()` uses: it checks the connection is open, and on
exit writes what websockets queued itself (a pong, a close) and waits for flow control.

Undocumented names relied on: `ServerConnection.send_context()`, `.protocol`, `.transport`.
`writes_frames()` says False when they are gone, and the listener then sends every message
through the public `send()` (slower, same bytes on the wire); tests/unit/compat/ fails loudly
on such an upgrade so the fast path is not lost silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def writes_frames(ws: Any) -> bool:
    """Whether this websockets connection lets gg write frames it built itself."""
    return (
        callable(getattr(ws, "send_context", None))
        and hasattr(ws, "protocol")
        and hasattr(ws, "transport")
    )


async def write_frames(ws: Any, buffers: Iterable[bytes | memoryview]) -> None:
    """Write whole frames (or one fragment's header and views) with one drain.

    Whole frames never interleave with websockets' own: the buffers are written without
    yielding to the loop.
    """
    async with ws.send_context():
        for data in buffers:
            ws.transport.write(data)


__all__ = ["write_frames", "writes_frames"]
