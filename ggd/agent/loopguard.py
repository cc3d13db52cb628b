"""The loop guard: notices a run that repeats the same tool call and stops it.

A small model can call `list missing/` two hundred times, each failure identical, until the turn
limit. The guard sees every call of a run (the loop hands it each batch before it runs and each
result as it is saved) and trips on the third identical call in a row, or on a call that already
failed twice with the same arguments. The first trip for a call only adds a note to that call's
result, so the model is told once; a call that trips again stops the run with a reason that names
the loop (an interactive run asks the user instead, through the approval mechanism).

"Identical" is the tool name plus its arguments as canonical JSON (sorted keys, no whitespace).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ggd.providers.types import ToolCall

from .errors import AgentError

LOOP_CODE = "loop_detected"

# Asked when a warned loop goes on: True continues (the counts start again), False stops.
LoopAsk = Callable[[ToolCall, str], Awaitable[bool]]


@dataclass(frozen=True)
class LoopGuardSettings:
    """config.json `loopGuard`: {"enabled", "identicalCalls", "identicalFailures"}."""

    enabled: bool = True
    identical_calls: int = 3
    identical_failures: int = 3


def call_key(call: ToolCall) -> str:
    """The identity of a call: tool name and canonical arguments."""
    args = json.dumps(call.arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{call.name}\x00{args}"


@dataclass
class _Trip:
    call: ToolCall
    why: str


@dataclass
class LoopGuard:
    """Counts identical calls of one run; see the module docstring for the rule."""

    settings: LoopGuardSettings = field(default_factory=LoopGuardSettings)
    ask: LoopAsk | None = None
    _last: str | None = None
    _streak: int = 0
    _failures: dict[str, int] = field(default_factory=dict)
    _warned: set[str] = field(default_factory=set)
    # tool call id -> the note its result gets (the one warning), and -> its key
    _notes: dict[str, str] = field(default_factory=dict)
    _keys: dict[str, str] = field(default_factory=dict)

    async def check(self, calls: list[ToolCall]) -> None:
        """Count a batch before it runs; raise AgentError(LOOP_CODE) when a warned loop goes on."""
        if not self.settings.enabled:
            return
        trip: _Trip | None = None
        for call in calls:
            key = call_key(call)
            self._keys[call.id] = key
            self._streak = self._streak + 1 if key == self._last else 1
            self._last = key
            why = self._why(call, key)
            if why is None:
                continue
            if key in self._warned:
                trip = trip or _Trip(call, why)
            else:
                self._warned.add(key)
                self._notes[call.id] = (
                    f"[loop guard: {why}. The result will not change by calling it again: "
                    "do something different, or answer with what you have. "
                    "Repeating it once more stops the run.]"
                )
        if trip is None:
            return
        message = (
            f"loop detected: {trip.why}, and it went on after the warning; the run was stopped "
            "(raise loopGuard.identicalCalls / identicalFailures in GG_HOME/config.json, or set "
            '"loopGuard": {"enabled": false})'
        )
        if self.ask is not None and await self.ask(trip.call, message):
            self._reset()
            return
        raise AgentError(message, LOOP_CODE, retryable=False)

    def _why(self, call: ToolCall, key: str) -> str | None:
        s = self.settings
        args = _short_args(call.arguments)
        if self._streak >= s.identical_calls:
            return f"{call.name}({args}) was called {self._streak} times in a row with the same arguments"
        failed = self._failures.get(key, 0)
        if failed + 1 >= s.identical_failures:
            return f"{call.name}({args}) already failed {failed} times with the same arguments"
        return None

    def result(self, message: dict[str, Any]) -> dict[str, Any]:
        """A tool-result message on its way to the transcript: count a failure, add the note."""
        call_id = message.get("toolCallId")
        if not isinstance(call_id, str):
            return message
        key = self._keys.pop(call_id, None)
        if key is not None and message.get("isError"):
            self._failures[key] = self._failures.get(key, 0) + 1
        note = self._notes.pop(call_id, None)
        if note is None:
            return message
        return {**message, "content": f"{message.get('content') or ''}\n\n{note}"}

    def _reset(self) -> None:
        self._last = None
        self._streak = 0
        self._failures.clear()
        self._warned.clear()


def _short_args(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["LOOP_CODE", "LoopAsk", "LoopGuard", "LoopGuardSettings", "call_key"]
