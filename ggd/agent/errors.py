"""The typed error a run fails with."""

from __future__ import annotations


class AgentError(Exception):
    """A run failed: a provider error, the turn limit or a failed compaction."""

    def __init__(self, message: str, code: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.retryable = retryable
