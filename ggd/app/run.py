"""Run: one agent run's lifecycle, numbered event log, subscribers and pending approvals."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ggd.agent import SteeringQueue
from ggd.protocol import Approval, Budget, RunStatus, UsageInfo, encode_message
from ggd.protocol import errors as E
from ggd.protocol import events as W
from ggd.protocol.events import TERMINAL_STATUS
from ggd.protocol.methods import RUN_EVENT

from .fanout import FrameCache, SubscriberSet, schedule
from .fanout import Subscriber as Subscriber
from .ring import EventRing

log = logging.getLogger("ggd.app")

_approval_ids = itertools.count(1)

# The C string encoder json.dumps(ensure_ascii=False) itself uses: a delta's body is assembled
# around it byte for byte as encode_message would produce it (tests/unit/app/test_runs_core.py).
_encode_str: Callable[[str], str] = json.encoder.encode_basestring


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


@dataclass
class PendingApproval:
    """A tool call waiting for a human; the future carries (allow, scope, by)."""

    approval: Approval
    future: asyncio.Future[tuple[bool, str, str]]


@dataclass
class Run:
    """One run. `emit` is the only writer of its event log."""

    session_id: str
    interactive: bool
    approval_mode: str
    model: str
    workspace_id: str = ""
    id: str = field(default_factory=lambda: "r_" + secrets.token_hex(8))
    status: str = "running"
    started_at: int = field(default_factory=now_ms)
    completed_at: int | None = None
    error: str | None = None
    usage: UsageInfo | None = None
    ring: EventRing = field(default_factory=EventRing)
    steering: SteeringQueue = field(default_factory=SteeringQueue)
    subscribers: SubscriberSet = field(default_factory=SubscriberSet)
    pending: dict[str, PendingApproval] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    finished_mono: float | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _waiting: int = 0  # wait_events callers since the last emit
    on_pending_change: Callable[[Run], None] | None = None
    # The final answer of a completed run (what a scheduler or a chat channel reports back).
    result: str | None = None
    # The run's own spending limits (run.start `budget`, a job's `budget`) and whose they are.
    budget: Budget | None = None
    budget_name: str = "run budget"
    reasoning_effort: str | None = None
    # encode_message's bytes of a delta up to its sessionId value (built on the first delta).
    _body_prefix: bytes | None = field(default=None, repr=False)
    # Bodies of this pass's deltas not yet handed to the held subscribers (see ggd/app/fanout).
    _held: list[bytes] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.subscribers.before_change = self.deliver_held

    # -- the event log ------------------------------------------------------------------------

    def emit(self, cls: type[W.RunEventBase], **fields: Any) -> dict[str, Any]:
        """Number, validate, record and fan out one event; never awaits a client.

        Streamed deltas take `emit_delta`, the one path the agent's deltas come by.
        """
        model = cls(
            run_id=self.id,
            session_id=self.session_id,
            sequence=self.ring.last_sequence + 1,
            timestamp=now_ms(),
            **fields,
        )
        wire = model.wire()
        # Encode once: the ring measures it and every subscriber gets the same bytes.
        body = encode_message({"jsonrpc": "2.0", "method": RUN_EVENT.name, "params": wire})
        self._record(wire, body)
        return wire

    def emit_delta(
        self, type_: Literal["text_delta", "thinking_delta"], text: str
    ) -> dict[str, Any]:
        """Emit a text_delta or thinking_delta: most of a run's events, so the cheapest path.

        The wire dict is the one the model would dump, built directly, and the body is
        encode_message's bytes assembled around the encoded text (both checked by
        tests/unit/app/test_runs_core.py), so no model and no json.dumps per delta.
        """
        seq = self.ring.last_sequence + 1
        ts = now_ms()
        wire: dict[str, Any] = {
            "runId": self.id,
            "sessionId": self.session_id,
            "sequence": seq,
            "timestamp": ts,
            "type": type_,
            "text": text,
        }
        prefix = self._body_prefix
        if prefix is None:
            prefix = self._body_prefix = (
                encode_message(
                    {"jsonrpc": "2.0", "method": RUN_EVENT.name, "params": {"runId": self.id}}
                )[:-2]
                + b',"sessionId":'
                + _encode_str(self.session_id).encode()
            )
        body = b'%s,"sequence":%d,"timestamp":%d,"type":"%s","text":%s}}' % (
            prefix,
            seq,
            ts,
            type_.encode(),
            _encode_str(text).encode(),
        )
        self.ring.append(wire, size=len(body))
        direct, held = self.subscribers.split()
        if held:
            # Handed over once per loop pass (deliver_held), not one call per subscriber here.
            pending = self._held
            pending.append(body)
            if len(pending) == 1:
                for sub in held:
                    sub.hold(self)
                schedule(self.deliver_held)
        if direct:
            self._notify(direct, wire, body)
        if self._waiting:
            self._wake_waiters()
        return wire

    def deliver_held(self) -> None:
        """Hand the deltas held since the last delivery to every held subscriber, in one call each."""
        bodies = self._held
        if not bodies:
            return
        self._held = []
        cache: FrameCache = {}
        for sub in self.subscribers.split()[1]:
            if sub.closed or not sub.deliver(self, bodies, cache):
                # The pass's bodies are the run's latest events, the one being recorded (if
                # any) on top: one before the earliest of them is surely what it last got.
                self._drop(sub, self.ring.last_sequence - len(bodies) - 1)

    def _record(self, wire: dict[str, Any], body: bytes) -> None:
        """Append an encoded event to the ring and hand its bytes to every subscriber."""
        self.ring.append(wire, size=len(body))
        type_ = wire["type"]
        if type_ in TERMINAL_STATUS:
            self.status = TERMINAL_STATUS[type_]
            self.completed_at = wire["timestamp"]
            self.finished_mono = time.monotonic()
        self.deliver_held()  # the deltas before this event go first
        self._notify(tuple(self.subscribers), wire, body)
        if self._waiting:
            self._wake_waiters()

    def _notify(self, subs: tuple[Subscriber, ...], wire: dict[str, Any], body: bytes) -> None:
        name = RUN_EVENT.name
        for sub in subs:
            if sub.closed or not sub.notify(name, wire, droppable=True, body=body):
                self._drop(sub, wire["sequence"] - 1)

    def _drop(self, sub: Subscriber, after: int) -> None:
        """A subscriber that cannot keep up leaves the live set until it has read its backlog.

        `after` is a sequence it surely got. A connection (`when_drained`) is then resumed as
        gg/run.subscribe {afterSequence: after} would: the events it missed are replayed from
        the ring and it follows live again, so a slow reader loses nothing the ring still
        holds (a client sees a replayed duplicate at most, and drops it by sequence).
        """
        self.subscribers.discard(sub)
        if sub.closed:
            return
        log.info("subscriber fell behind; live events paused", extra={"run": self.id})
        when_drained = getattr(sub, "when_drained", None)
        if when_drained is not None:
            when_drained(lambda: self._resume(sub, after))

    def _resume(self, sub: Subscriber, after: int) -> None:
        # Not if it closed, unsubscribed (run_subs) or subscribed again by itself meanwhile.
        if sub.closed or sub in self.subscribers or self.id not in getattr(sub, "run_subs", ()):
            return
        first = self.ring.first_sequence
        if after < first - 1:
            # Events it never got left the ring: it sees a gap in the sequences there.
            log.info("resumed subscriber missed expired events", extra={"run": self.id})
            after = first - 1
        self.subscribe(sub, after)

    def _wake_waiters(self) -> None:
        # Only gg/run.wait-style pollers wait on this; with none, skip an Event per event.
        self._changed.set()
        self._changed = asyncio.Event()
        self._waiting = 0

    def subscribe(self, sub: Subscriber, after: int) -> int:
        """Replay events after `after`, then stream live ones; nothing missed or doubled."""
        self.deliver_held()  # to the subscribers so far; the backlog below has those events
        backlog = self.ring.since(after)
        for ev in backlog:
            sub.notify(RUN_EVENT.name, ev, droppable=False)
        self.subscribers.add(sub)
        return len(backlog)

    async def wait_events(self, after: int, wait_s: float) -> list[dict[str, Any]]:
        """Events after `after`, waiting up to wait_s seconds for the first one."""
        events = self.ring.since(after)
        if events or self.done:
            return events
        changed = self._changed
        self._waiting += 1
        try:
            await asyncio.wait_for(changed.wait(), wait_s)
        except TimeoutError:
            return []
        return self.ring.since(after)

    @property
    def done(self) -> bool:
        """The run reached a terminal state."""
        return self.status in TERMINAL_STATUS.values()

    async def finished(self) -> None:
        """Wait until the run's task has recorded its end."""
        if self.task is not None:
            await asyncio.wait({self.task})

    # -- approvals ----------------------------------------------------------------------------

    def add_approval(self, approval: Approval) -> PendingApproval:
        """Register a pending approval and announce it."""
        fut: asyncio.Future[tuple[bool, str, str]] = asyncio.get_running_loop().create_future()
        pending = PendingApproval(approval, fut)
        self.pending[approval.id] = pending
        self.status = "waiting_approval"
        self.emit(W.ApprovalRequestedEvent, approval=approval)
        self._pending_changed()
        return pending

    def answer(self, approval_id: str, allow: bool, scope: str, by: str = "user") -> None:
        """Resolve a pending approval; the first answer wins, later ones get approval_expired."""
        pending = self.pending.pop(approval_id, None)
        if pending is None or pending.future.done():
            raise E.ApprovalExpiredError(
                "that approval was already answered, canceled or timed out"
            )
        pending.future.set_result((allow, scope, by))
        self.emit(
            W.ApprovalResolvedEvent,
            approval_id=approval_id,
            allow=allow,
            by=by,
            scope=scope if by == "user" else None,
        )
        if not self.pending and not self.done:
            self.status = "running"
        self._pending_changed()

    def cancel_approvals(self, by: str) -> None:
        """Deny every pending approval (the run is ending); clients see each one resolved."""
        if not self.pending:
            return
        for aid, pending in list(self.pending.items()):
            del self.pending[aid]
            # A cancelled run task has already cancelled the future it was awaiting.
            if not pending.future.done():
                pending.future.set_result((False, "once", by))
            self.emit(W.ApprovalResolvedEvent, approval_id=aid, allow=False, by=by)
        self._pending_changed()

    def _pending_changed(self) -> None:
        if self.on_pending_change is not None:
            self.on_pending_change(self)

    @staticmethod
    def new_approval_id() -> str:
        """A fresh approval id."""
        return f"a_{next(_approval_ids)}_{secrets.token_hex(3)}"

    def status_dto(self) -> RunStatus:
        """The RunStatus projection."""
        return RunStatus(
            id=self.id,
            session_id=self.session_id,
            status=self.status,
            started_at=self.started_at,
            completed_at=self.completed_at,
            first_sequence=self.ring.first_sequence,
            last_sequence=self.ring.last_sequence,
            pending_approvals=[p.approval for p in self.pending.values()],
            usage=self.usage,
            error=self.error,
        )
