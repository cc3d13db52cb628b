"""One client connection: identity, workspace, subscriptions and a bounded outbound queue."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ggd.protocol import encode_message

from .pieces import Pieces

if TYPE_CHECKING:
    from ggd.app.fanout import FrameCache, Holder

log = logging.getLogger("ggd.rpc")

_ids = itertools.count(1)

# Pending outbound bytes before droppable notifications are shed, and the hard cap after which
# the connection is closed: a client that stops reading never costs unbounded memory.
SOFT_LIMIT = 1 * 1024 * 1024
HARD_LIMIT = 8 * 1024 * 1024
# What is still unwritten when `when_drained` callbacks run: the client has caught up.
DRAINED = SOFT_LIMIT // 4


@dataclass(eq=False)  # identity semantics: connections are set members
class Connection:
    """A client connection. Publishing never awaits the client: frames go to a bounded queue."""

    transport: str
    # The transport's framing of one encoded message (LSP headers on streams); None: one message
    # per frame of the transport itself (WebSocket).
    framer: Callable[[bytes], bytes] | None = None
    remote: bool = False
    id: int = field(default_factory=lambda: next(_ids))
    initialized: bool = False
    workspace_id: str | None = None
    client_name: str = ""
    # What LSP's `exit` asks the process to return (1 without `shutdown`): a private stdio
    # daemon exits with it (ggd.rpc.editor.lifecycle).
    exit_code: int = 0
    # Opted in at initialize (`initializationOptions.batchFrames`, WebSocket only): messages
    # queued together go out as one JSON array per frame (see the WebSocket writer).
    batch_frames: bool = False
    session_subs: set[str] = field(default_factory=set)
    run_subs: set[str] = field(default_factory=set)
    on_close: list[Callable[[Connection], None]] = field(default_factory=list)
    # The WebSocket text framing of every queued message (set by the listener): the queue then
    # holds whole frames the writer sends as they are. None: bodies (batching, streams).
    wire: SharedFramer | None = None
    # Whole frames, bodies (batching), or a big answer as Pieces (its writer frames it).
    _queue: deque[bytes | Pieces] = field(default_factory=deque)
    _pending: int = 0
    # The writer's wake-up while it waits on an empty queue (None while it is busy).
    _waiter: asyncio.Future[None] | None = None
    closed_event: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    dropped_notifications: int = 0
    # The one queued answer above HARD_LIMIT that does not count as pending (see send_raw).
    _big: bytes | Pieces | None = None
    # Runs holding deltas for this connection until the loop's next pass (ggd/app/fanout.py):
    # anything else sent, the writer's take and a close let them deliver first, keeping order.
    _holds: dict[int, Holder] = field(default_factory=dict)
    # Called once the backlog is written (runs that paused this slow reader's live events).
    _on_drained: list[Callable[[], None]] = field(default_factory=list)

    @property
    def framed(self) -> bool:
        """Whether messages carry stream framing (stdio, Unix socket)."""
        return self.framer is not None

    def frame(self, body: bytes) -> bytes:
        """Frame an encoded message for this transport (WebSocket framing is send_raw's)."""
        return self.framer(body) if self.framer is not None else body

    def encode(self, message: dict[str, Any]) -> bytes:
        """Serialise and frame one JSON-RPC message for this transport."""
        return self.frame(encode_message(message))

    def send_raw(self, data: bytes | Pieces, *, droppable: bool = False) -> bool:
        """Queue bytes; droppable ones are shed past the soft limit. False when not queued.

        Pieces (a big answer, ggd.rpc.pieces) are queued as they are: the WebSocket writer
        sends them as a fragmented message, a stream writer in groups.
        """
        if self.closed:
            return False
        if self._holds:
            self._release()
        if self.wire is not None and not isinstance(data, Pieces):
            # Framed without the shared memo: an answer goes to one client only, and the memo
            # would keep it (gg/session.open of a long session: tens of MB) until the next event.
            data = self.wire.fn(data)
        if len(data) > HARD_LIMIT and self._big is None and not droppable:
            if self._pending <= SOFT_LIMIT:
                # One answer bigger than the hard limit (gg/session.open of a 100k-entry
                # session is ~40 MB) still reaches a client that has kept up. It is not
                # counted, so events queued behind it are judged as before; a second one
                # before it is written counts in full and closes the connection.
                self._big = data
                self._queue.append(data)
                if self._waiter is not None:
                    self._wake()
                return True
        return self._enqueue(data, droppable)

    def _enqueue(self, data: bytes | Pieces, droppable: bool) -> bool:
        pending = self._pending + len(data)
        if pending > SOFT_LIMIT and not self._over_limit(pending, droppable):
            return False
        self._queue.append(data)
        self._pending = pending
        if self._waiter is not None:
            self._wake()
        return True

    def _over_limit(self, pending: int, droppable: bool) -> bool:
        """Past the soft limit: shed a droppable message, close past the hard one (False)."""
        if droppable:
            self.dropped_notifications += 1
            return False
        if pending > HARD_LIMIT:
            log.warning("closing connection: client stopped reading", extra={"conn": self.id})
            self.close()
            return False
        return True

    def _wake(self) -> None:
        # The writer sleeps on an empty queue: one wake per batch of messages, not per message.
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def notify(
        self,
        method: str,
        params: dict[str, Any],
        *,
        droppable: bool = True,
        body: bytes | None = None,
    ) -> bool:
        """Send a notification without waiting for the client.

        `body` is the already-encoded JSON-RPC message, so a fan-out encodes an event once (and
        with a shared framer, frames it once for every connection of a transport). Every event
        of every subscriber passes here, so `_enqueue` is inlined: a few attribute operations.
        """
        if self.closed:
            return False
        if self._holds:
            self._release()
        if body is None:
            body = encode_message({"jsonrpc": "2.0", "method": method, "params": params})
        wire = self.wire
        if wire is not None:
            if body is wire.body:  # the event another subscriber framed a moment ago
                data = wire.frame
            else:
                data = wire.frame = wire.fn(body)
                wire.body = body
        elif self.framer is not None:
            data = self.framer(body)
        else:
            data = body
        pending = self._pending + len(data)
        if pending > SOFT_LIMIT and not self._over_limit(pending, droppable):
            return False
        self._queue.append(data)
        self._pending = pending
        if self._waiter is not None:
            self._wake()
        return True

    def hold(self, holder: Holder) -> None:
        """A run keeps deltas for this connection until the loop's next pass (or until asked)."""
        self._holds[id(holder)] = holder

    def _release(self) -> None:
        """Let every run holding deltas for this connection hand them over now."""
        holds = self._holds
        while holds:
            _, holder = holds.popitem()
            holder.deliver_held()

    def deliver(self, holder: Holder, bodies: list[bytes], cache: FrameCache) -> bool:
        """Queue a pass's droppable notifications at once; False once one of them is shed.

        The same limits as `notify` per message: past the soft limit the first message that
        does not fit is shed (and the rest with it: the run pauses this subscriber). `cache`
        holds each transport's framing of `bodies`, built by the first connection that needs it.
        """
        self._holds.pop(id(holder), None)
        if self.closed:
            return False
        key: object = self.wire if self.wire is not None else self.framer
        got = cache.get(key)
        if got is None:
            if isinstance(key, SharedFramer) and key.many is not None:
                # Whole frames in one bytes object: framed and joined once for every connection
                # of the transport, and one queue entry each.
                blob = key.many(bodies)
                got = cache[key] = ([blob], len(blob))
            elif key is None:  # bodies as they are (batchFrames): the writer makes arrays
                got = cache[key] = (bodies, sum(map(len, bodies)))
            else:
                frames = [self._frame_one(b) for b in bodies]
                got = cache[key] = (frames, sum(map(len, frames)))
        frames, size = got
        pending = self._pending + size
        if pending > SOFT_LIMIT:
            return self._deliver_each(bodies)
        self._queue.extend(frames)
        self._pending = pending
        if self._waiter is not None:
            self._wake()
        return True

    def _frame_one(self, body: bytes) -> bytes:
        """A body as this connection queues it, without the shared memo."""
        if self.wire is not None:
            return self.wire.fn(body)
        framer = self.framer
        if isinstance(framer, SharedFramer):
            return framer.fn(body)
        return body if framer is None else framer(body)

    def _deliver_each(self, bodies: list[bytes]) -> bool:
        # Near the soft limit: message by message, so exactly those that fit are queued.
        fits = True
        for body in bodies:
            data = self._frame_one(body)
            pending = self._pending + len(data)
            if pending > SOFT_LIMIT and not self._over_limit(pending, True):
                fits = False
                break
            self._queue.append(data)
            self._pending = pending
        if self._waiter is not None and self._queue:
            self._wake()
        return fits

    def start_batching(self) -> bool:
        """Queue bodies from now on, for the writer to join into arrays (batchFrames).

        Only while nothing is queued or being written: frames already built stay whole frames.
        False (not batching) otherwise, or on a stream transport.
        """
        if self._holds:
            self._release()
        if self.framed or self._pending:
            return False
        self.wire = None
        self.batch_frames = True
        return True

    def respond_error(self, msg_id: Any, error: dict[str, Any]) -> None:
        """Send an error response (id may be None for unparsable requests)."""
        self.send_body(encode_message({"jsonrpc": "2.0", "id": msg_id, "error": error}))

    def send_body(self, body: bytes | Pieces) -> bool:
        """Queue one encoded message for this client alone (an answer), framed for the transport.

        Not through the shared framer's memo: an answer goes to one client only, and the memo
        would keep it alive (a long session's gg/session.open: tens of MB) until the next event.
        """
        if isinstance(body, Pieces):
            if self.framer is not None:  # stream framing around the pieces, never copied
                body = body.framed(b"Content-Length: %d\r\n\r\n" % len(body))
            return self.send_raw(body)
        framer = self.framer
        if framer is not None and self.wire is None:
            body = framer.fn(body) if isinstance(framer, SharedFramer) else framer(body)
        return self.send_raw(body)

    async def next_frames(self) -> list[bytes | Pieces] | None:
        """Wait for queued frames; None once closed and drained.

        The frames keep counting as pending until `written()`: bytes in the socket's own buffer
        are still memory this client costs.
        """
        if self._holds:
            self._release()
        while not self._queue:
            if self.closed:
                return None
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        frames = list(self._queue)
        self._queue.clear()
        return frames

    def take_frames(self) -> list[bytes | Pieces]:
        """Whatever is queued right now, without waiting (pending until `written()` too)."""
        if self._holds:
            self._release()
        frames = list(self._queue)
        self._queue.clear()
        return frames

    def written(self, frames: list[bytes | Pieces]) -> None:
        """The writer finished sending frames; they stop counting against the limits."""
        big = self._big
        if big is not None and any(f is big for f in frames):
            self._big = None
            self._pending -= sum(len(f) for f in frames if f is not big)
        else:
            self._pending -= sum(map(len, frames))
        # One at a time: a resumed run replays up to its ring (4 MB), so the next waits until
        # that has been written too, and two replays never push past the hard limit together.
        while self._on_drained and self._pending <= DRAINED and not self.closed:
            cb = self._on_drained.pop(0)
            try:
                cb()
            except Exception:  # one run's failure must not stop the others' resume
                log.exception("drained callback failed", extra={"conn": self.id})

    def when_drained(self, callback: Callable[[], None]) -> None:
        """Call back once what is queued now has been written (down to DRAINED bytes)."""
        self._on_drained.append(callback)

    @property
    def pending_bytes(self) -> int:
        """Bytes waiting to be written (held deltas handed over first)."""
        if self._holds:
            self._release()
        return self._pending

    def close(self) -> None:
        """Mark closed; the writer drains what is queued, listeners tear down the socket."""
        if self.closed:
            return
        if self._holds:
            self._release()  # the writer drains what was owed before the close
        self.closed = True
        self._on_drained.clear()
        self._wake()
        self.closed_event.set()
        for cb in list(self.on_close):
            try:
                cb(self)
            except Exception:  # a failing cleanup must not stop the others
                log.exception("connection close callback failed")


class SharedFramer:
    """A framer with a one-entry memo by identity: a fan-out frames each event once.

    Run and the session bus hand the same body object to every subscriber in turn, so all but
    the first connection of a transport reuse the frame (`notify` reads the memo inline). The
    memo keeps the body alive, so the same identity always means the same (immutable) bytes.
    """

    __slots__ = ("body", "fn", "frame", "many")

    def __init__(
        self, fn: Callable[[bytes], bytes], many: Callable[[list[bytes]], bytes] | None = None
    ) -> None:
        self.fn = fn
        # Frames several bodies into one concatenation (a loop pass's deltas, see `deliver`).
        self.many = many
        self.body: bytes | None = None
        self.frame = b""

    def __call__(self, body: bytes) -> bytes:
        if body is not self.body:
            self.frame = self.fn(body)
            self.body = body
        return self.frame
