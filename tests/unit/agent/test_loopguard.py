"""The loop guard's counting rule, call by call (the end-to-end cases are tests/e2e/test_loop_guard.py)."""

from __future__ import annotations

import itertools

import pytest

from ggd.agent.errors import AgentError
from ggd.agent.loopguard import LOOP_CODE, LoopGuard, LoopGuardSettings, call_key
from ggd.providers.types import ToolCall

_ids = itertools.count(1)


def _call(name: str, **args: object) -> ToolCall:
    return ToolCall(id=f"c{next(_ids)}", name=name, arguments=dict(args))


async def _step(guard: LoopGuard, call: ToolCall, *, error: bool = False) -> str:
    """One batch of one call: check, then its result through the guard; the result text."""
    await guard.check([call])
    msg = {"role": "tool", "toolCallId": call.id, "content": "out", "isError": error}
    return str(guard.result(msg)["content"])


def test_the_key_ignores_argument_order_but_not_values() -> None:
    assert call_key(_call("read", path="a", limit=1)) == call_key(_call("read", limit=1, path="a"))
    assert call_key(_call("read", path="a")) != call_key(_call("read", path="b"))
    assert call_key(_call("read", path="a")) != call_key(_call("list", path="a"))


async def test_third_in_a_row_is_warned_fourth_stops() -> None:
    guard = LoopGuard()
    assert await _step(guard, _call("read", path="a")) == "out"
    assert await _step(guard, _call("read", path="a")) == "out"
    warned = await _step(guard, _call("read", path="a"))
    assert warned.startswith("out\n\n[loop guard: read(") and "3 times in a row" in warned
    with pytest.raises(AgentError) as exc:
        await guard.check([_call("read", path="a")])
    assert exc.value.code == LOOP_CODE and not exc.value.retryable
    assert 'read({"path": "a"}) was called 4 times in a row' in exc.value.message


async def test_a_different_call_in_between_resets_the_streak() -> None:
    guard = LoopGuard()
    for _ in range(10):
        assert await _step(guard, _call("read", path="a")) == "out"
        assert await _step(guard, _call("read", path="b")) == "out"


async def test_the_same_failure_three_times_trips_even_when_not_in_a_row() -> None:
    guard = LoopGuard()
    await _step(guard, _call("list", path="x"), error=True)
    await _step(guard, _call("read", path="y"))
    await _step(guard, _call("list", path="x"), error=True)
    await _step(guard, _call("read", path="z"))
    warned = await _step(guard, _call("list", path="x"), error=True)
    assert "already failed 2 times with the same arguments" in warned
    await _step(guard, _call("read", path="w"))
    with pytest.raises(AgentError, match="already failed 3 times"):
        await guard.check([_call("list", path="x")])


async def test_an_answer_to_go_on_starts_the_counts_again() -> None:
    asked: list[str] = []

    async def ask(call: ToolCall, message: str) -> bool:
        asked.append(message)
        return len(asked) == 1  # the first time yes, then no

    guard = LoopGuard(ask=ask)
    for _ in range(3):
        await _step(guard, _call("read", path="a"))
    await _step(guard, _call("read", path="a"))  # asked, allowed: runs, counts reset
    assert len(asked) == 1 and asked[0].startswith("loop detected:")
    for _ in range(3):  # 1, 2, 3 (warned again) after the reset
        await _step(guard, _call("read", path="a"))
    with pytest.raises(AgentError):
        await guard.check([_call("read", path="a")])
    assert len(asked) == 2


async def test_disabled_and_custom_limits() -> None:
    off = LoopGuard(LoopGuardSettings(enabled=False))
    for _ in range(20):
        assert await _step(off, _call("read", path="a")) == "out"
    two = LoopGuard(LoopGuardSettings(identical_calls=2, identical_failures=2))
    await _step(two, _call("read", path="a"))
    assert "[loop guard:" in await _step(two, _call("read", path="a"))
