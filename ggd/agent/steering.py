"""Steering and follow-up messages pushed while a run is going."""

from __future__ import annotations

from collections import deque


class SteeringQueue:
    """Text pushed by clients: steering is taken at model boundaries, follow-ups after the answer."""

    def __init__(self) -> None:
        self._steering: deque[str] = deque()
        self._follow_ups: deque[str] = deque()

    def push(self, text: str, follow_up: bool = False) -> None:
        """Queue a message for the running turn."""
        (self._follow_ups if follow_up else self._steering).append(text)

    def drain_steering(self) -> list[str]:
        """Take every queued steering message, oldest first."""
        out = list(self._steering)
        self._steering.clear()
        return out

    def drain_follow_ups(self) -> list[str]:
        """Take every queued follow-up message, oldest first."""
        out = list(self._follow_ups)
        self._follow_ups.clear()
        return out

    def __len__(self) -> int:
        return len(self._steering) + len(self._follow_ups)
