"""The event ring, the approval policy table and a run's fan-out to slow subscribers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from ggd.app.policy import decide, start_refusal
from ggd.app.ring import EventRing
from ggd.app.run import Run
from ggd.protocol import encode_message
from ggd.protocol import errors as E
from ggd.protocol import events as W


def _ev(seq: int, text: str = "x") -> dict[str, Any]:
    return {"sequence": seq, "type": "text_delta", "text": text}


def test_ring_replays_after_a_sequence_and_expires_old_history() -> None:
    ring = EventRing(max_events=5, max_bytes=10_000)
    for i in range(1, 9):
        ring.append(_ev(i))
    assert ring.first_sequence == 4 and ring.last_sequence == 8
    assert [e["sequence"] for e in ring.since(3)] == [4, 5, 6, 7, 8]
    assert [e["sequence"] for e in ring.since(6)] == [7, 8]
    assert ring.since(8) == []
    with pytest.raises(E.EventHistoryExpiredError):
        ring.since(2)


def test_ring_is_bounded_by_bytes_too() -> None:
    ring = EventRing(max_events=1000, max_bytes=2_000)
    for i in range(1, 101):
        ring.append(_ev(i, "y" * 100))
    assert ring.nbytes <= 2_000 and len(ring) < 100
    assert ring.last_sequence == 100


@pytest.mark.parametrize(
    ("mode", "interactive", "dangerous", "verdict"),
    [
        ("auto", True, False, "ask"),
        ("auto", False, False, "deny"),
        ("auto", True, True, "ask"),
        ("auto", False, True, "deny"),
        ("on-request", True, False, "ask"),
        ("on-request", True, True, "ask"),
        ("yolo", True, False, "allow"),
        ("yolo", False, False, "allow"),
        ("yolo", True, True, "ask"),
        ("yolo", False, True, "deny"),
        ("never", True, False, "allow"),
        ("never", False, False, "allow"),
        ("never", True, True, "deny"),
        ("never", False, True, "deny"),
    ],
)
def test_the_policy_table(mode: str, interactive: bool, dangerous: bool, verdict: str) -> None:
    d = decide(mode, interactive, dangerous)
    assert d.verdict == verdict
    if verdict == "deny":
        assert d.reason


def test_on_request_needs_an_interactive_client() -> None:
    assert start_refusal("on-request", False)
    assert start_refusal("on-request", True) is None
    assert start_refusal("auto", False) is None


class Sub:
    """A subscriber whose queue can be full."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.got: list[dict[str, Any]] = []
        self.closed = False

    def notify(
        self,
        method: str,
        params: dict[str, Any],
        *,
        droppable: bool = True,
        body: bytes | None = None,
    ) -> bool:
        if droppable and len(self.got) >= self.capacity:
            return False
        self.got.append(params)
        return True


async def test_a_subscriber_that_falls_behind_loses_its_live_subscription_only() -> None:
    run = Run(session_id="s", interactive=False, approval_mode="auto", model="m")
    fast, slow = Sub(10_000), Sub(3)
    run.subscribe(fast, 0)
    run.subscribe(slow, 0)
    for i in range(10):
        run.emit(W.TextDeltaEvent, text=str(i))
    assert [e["sequence"] for e in fast.got] == list(range(1, 11))
    assert [e["sequence"] for e in slow.got] == [1, 2, 3]
    assert slow not in run.subscribers and fast in run.subscribers
    # it resumes from what it saw, with nothing missed or doubled
    slow.capacity = 10_000
    run.subscribe(slow, 3)
    run.emit(W.TextDeltaEvent, text="more")
    assert [e["sequence"] for e in slow.got] == list(range(1, 12))


async def test_first_answer_wins_and_later_ones_expire() -> None:
    from ggd.protocol import Approval

    run = Run(session_id="s", interactive=True, approval_mode="auto", model="m")
    pending = run.add_approval(Approval(id="a1", tool_name="write", summary="write x"))
    assert run.status == "waiting_approval"
    run.answer("a1", True, "once")
    assert pending.future.result() == (True, "once", "user") and run.status == "running"
    with pytest.raises(E.ApprovalExpiredError):
        run.answer("a1", False, "once")
    types = [e["type"] for e in run.ring.since(0)]
    assert types == ["approval_requested", "approval_resolved"]


async def test_cancelling_a_run_resolves_approvals_whose_wait_was_cancelled() -> None:
    from ggd.protocol import Approval

    run = Run(session_id="s", interactive=True, approval_mode="auto", model="m")
    pending = run.add_approval(Approval(id="a1", tool_name="write", summary="write x"))
    pending.future.cancel()  # what task cancellation does to the awaited future
    run.cancel_approvals("cancel")
    assert run.pending == {}
    resolved = [e for e in run.ring.since(0) if e["type"] == "approval_resolved"]
    assert resolved == [resolved[0]] and resolved[0]["by"] == "cancel" and not resolved[0]["allow"]


@pytest.mark.parametrize(
    ("cls", "kind"),
    [(W.TextDeltaEvent, "text_delta"), (W.ThinkingDeltaEvent, "thinking_delta")],
)
async def test_a_delta_emitted_on_the_fast_path_is_the_model_s_own_wire_dict(
    cls: type[W.RunEventBase], kind: Any
) -> None:
    run = Run(session_id="s_1", interactive=False, approval_mode="yolo", model="m")
    wire = run.emit_delta(kind, "héllo")
    model = cls(
        run_id=run.id,
        session_id="s_1",
        sequence=wire["sequence"],
        timestamp=wire["timestamp"],
        text="héllo",
    )
    assert wire == model.wire()
    assert list(wire) == list(model.wire())


class _Capture:
    """A subscriber that keeps the encoded bodies it is handed."""

    closed = False

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def notify(
        self,
        method: str,
        params: dict[str, Any],
        *,
        droppable: bool = True,
        body: bytes | None = None,
    ) -> bool:
        assert body is not None
        self.bodies.append(body)
        return True


@pytest.mark.parametrize(
    "text", ["héllo", 'a "quoted" \\ back\\slash', "tab\tnew\nline\x00\x1f", "日本語 🎉", " "]
)
async def test_a_delta_s_bytes_are_exactly_what_encode_message_makes_of_its_wire_dict(
    text: str,
) -> None:
    run = Run(session_id='s_"odd"', interactive=False, approval_mode="yolo", model="m")
    sub = _Capture()
    run.subscribe(sub, 0)
    wires = [run.emit_delta("text_delta", text), run.emit_delta("thinking_delta", text)]
    wires.append(run.emit(W.TextDeltaEvent, text=text))  # the model's own path, for comparison
    expected = [
        encode_message({"jsonrpc": "2.0", "method": "gg/run.event", "params": w}) for w in wires
    ]
    assert sub.bodies == expected
    assert [json.loads(b)["params"]["text"] for b in sub.bodies] == [text] * 3


async def test_a_waiter_is_woken_by_the_next_event_after_quiet_emits() -> None:
    run = Run(session_id="s_1", interactive=False, approval_mode="yolo", model="m")
    run.emit(W.TextDeltaEvent, text="a")
    waiter = asyncio.create_task(run.wait_events(1, 5))
    await asyncio.sleep(0)  # let the waiter reach its wait
    run.emit(W.TextDeltaEvent, text="b")
    got = await asyncio.wait_for(waiter, 5)
    assert [e["text"] for e in got] == ["b"]
