"""One big message held as the buffers it was assembled from, written without joining them.

A gg/session.open answer is a small envelope around the session's messages and tree lists, which
come spliced as msgspec.Raw views of the derived snapshot file (ggd.app.snapshot_file). Encoding
the whole answer into one buffer copied those lists once (4.4 MB at 10k entries, 44 MB at 100k),
framing it and joining it with other frames copied them again, each copy on the event loop in one
go. `Pieces` keeps the envelope's parts and the views as they are: the connection queues it like
any frame (its length counts against the limits), and each transport's writer sends it in groups
of at most GROUP_BYTES, yielding to the loop between groups (so a second client's request is not
held up by one long answer) and never allocating the answer's size again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import cast, final

__all__ = ["GROUP_BYTES", "Buffer", "Pieces", "spans"]

Buffer = bytes | memoryview

# The most bytes one write of a Pieces hands the transport before the writer waits for the
# socket to take them: a few socket buffers' worth, so few loop passes and a short hold.
GROUP_BYTES = 256 * 1024


@final
class Pieces:
    """A message as consecutive buffers: immutable, its length the sum of theirs.

    Final: writers find it among frames by exact type (`spans`).
    """

    __slots__ = ("parts", "size")

    def __init__(self, parts: Sequence[Buffer]) -> None:
        self.parts: tuple[Buffer, ...] = tuple(p for p in parts if len(p))
        self.size = sum(map(len, self.parts))

    def __len__(self) -> int:
        return self.size

    def __bytes__(self) -> bytes:
        return b"".join(self.parts)

    def __repr__(self) -> str:
        return f"Pieces({len(self.parts)} parts, {self.size} bytes)"

    def framed(self, head: bytes) -> Pieces:
        """The same message behind a transport's header (LSP Content-Length headers)."""
        return Pieces((head, *self.parts))

    def groups(self, limit: int = GROUP_BYTES) -> list[list[Buffer]]:
        """The buffers cut into consecutive groups of at most `limit` bytes (views, no copy)."""
        out: list[list[Buffer]] = []
        group: list[Buffer] = []
        room = limit
        for part in self.parts:
            view = memoryview(part) if len(part) > room else part
            while len(view) > room:
                group.append(view[:room])
                out.append(group)
                view, group, room = view[room:], [], limit
            if len(view):
                group.append(view)
                room -= len(view)
            if room == 0:
                out.append(group)
                group, room = [], limit
        if group:
            out.append(group)
        return out


def spans(
    frames: list[bytes | Pieces],
    join: Callable[[list[bytes]], bytes] = b"".join,
    expand: Callable[[Pieces], list[list[Buffer]]] = Pieces.groups,
) -> Iterator[list[Buffer]]:
    """What a writer sends for one take of queued frames, write by write.

    Each run of ordinary frames is joined into one buffer (one syscall for a pass of events);
    a Pieces goes as `expand` cuts it (its groups; the WebSocket writer's fragments), each a
    write of its own.
    """
    if Pieces not in map(type, frames):
        # The usual take, a streaming connection's events: no Pieces among them. The scan runs
        # in C, where the loop below costs a Python iteration per frame (a take holds one per
        # event: 500 batched bodies went through in 44 -> 37 us), then the join is the write.
        if frames:
            yield [join(cast("list[bytes]", frames))]
        return
    run: list[bytes] = []
    for frame in frames:
        if isinstance(frame, Pieces):
            if run:
                yield [join(run)]
                run = []
            yield from expand(frame)
        else:
            run.append(frame)
    if run:
        yield [join(run)]
