"""Typed protocol errors with stable codes: the core's own, and the table every capability joins.

A capability's own errors live in its package (`ggd/capabilities/<name>/errors.py`) and are
listed in its declaration (`Capability.errors`); the registry and the protocol export put them in
one table with these (`error_table`), which refuses a code or symbol claimed twice. Only errors
any part of the daemon may raise live here.

Hierarchy (the core's)::

    GgError                      (code, symbol, retryable)
    ├── SessionNotFoundError     -32001 session_not_found
    ├── RunNotFoundError         -32002 run_not_found
    ├── RunConflictError         -32003 run_conflict
    ├── ApprovalExpiredError     -32004 approval_expired
    ├── EventHistoryExpiredError -32005 event_history_expired
    ├── SessionConflictError     -32006 session_conflict
    ├── InvalidActionError       -32007 invalid_action
    ├── WorkspaceMismatchError   -32008 workspace_mismatch
    ├── RunCapacityError         -32009 run_capacity
    ├── RuntimeClosedError       -32010 runtime_closed
    ├── CapabilityUnavailableError -32014 capability_unavailable
    ├── CheckpointConflictError  -32015 checkpoint_conflict
    ├── InvalidParamsError       -32602 invalid_params
    ├── NotInitializedError      -32002 not_initialized (LSP's code; told apart by data.code)
    ├── MethodNotFoundError      -32601 method_not_found
    └── InternalError            -32603 internal_error

Capabilities' own: artifact_not_found -32011 and version_changed -32012 (artifacts),
job_not_found -32013 (scheduler), kb_not_found -32016 (kb).

Messages say what was wrong and what to do; they never carry file paths or secrets.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar


class GgError(Exception):
    """A protocol error: JSON-RPC code, symbolic code in data.code, and retryability."""

    code: ClassVar[int] = -32603
    symbol: ClassVar[str] = "internal_error"
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, *, retryable: bool | None = None) -> None:
        super().__init__(message)
        self.message = message
        if retryable is not None:
            self._retryable = retryable

    @property
    def is_retryable(self) -> bool:
        """Whether the same request may succeed later."""
        return getattr(self, "_retryable", self.retryable)

    def to_error(self) -> dict[str, Any]:
        """The JSON-RPC error object."""
        return {
            "code": self.code,
            "message": self.message,
            "data": {"code": self.symbol, "retryable": self.is_retryable},
        }


class SessionNotFoundError(GgError):
    """No session with that id in this daemon."""

    code, symbol = -32001, "session_not_found"


class RunNotFoundError(GgError):
    """No run with that id (never started, or expired)."""

    code, symbol = -32002, "run_not_found"


class RunConflictError(GgError):
    """The session already has an active run."""

    code, symbol, retryable = -32003, "run_conflict", True


class ApprovalExpiredError(GgError):
    """The approval was already answered, canceled or timed out."""

    code, symbol = -32004, "approval_expired"


class EventHistoryExpiredError(GgError):
    """The requested events fell out of the replay ring; reload the snapshot."""

    code, symbol = -32005, "event_history_expired"


class SessionConflictError(GgError):
    """Another writer changed the session; reload and retry."""

    code, symbol, retryable = -32006, "session_conflict", True


class InvalidActionError(GgError):
    """The action does not apply to this session or node."""

    code, symbol = -32007, "invalid_action"


class WorkspaceMismatchError(GgError):
    """The session belongs to another workspace than this connection's."""

    code, symbol = -32008, "workspace_mismatch"


class RunCapacityError(GgError):
    """The daemon is at its limit of active runs."""

    code, symbol, retryable = -32009, "run_capacity", True


class RuntimeClosedError(GgError):
    """The daemon is shutting down."""

    code, symbol, retryable = -32010, "runtime_closed", True





class CapabilityUnavailableError(GgError):
    """The capability is not available in this daemon; the message says why."""

    code, symbol = -32014, "capability_unavailable"


class CheckpointConflictError(GgError):
    """A restore would overwrite files changed outside gg; preview it and confirm to go on."""

    code, symbol = -32015, "checkpoint_conflict"


class InvalidParamsError(GgError):
    """The params do not match the method's schema."""

    code, symbol = -32602, "invalid_params"


class NotInitializedError(GgError):
    """A gg method arrived before `initialize`."""

    code, symbol = -32002, "not_initialized"


class MethodNotFoundError(GgError):
    """No such method."""

    code, symbol = -32601, "method_not_found"


class InternalError(GgError):
    """An unexpected failure; details are in the daemon's log, not here."""

    code, symbol = -32603, "internal_error"


# gg's own codes (-32000..-32099), in code order on the wire tables.
GG_ERRORS: tuple[type[GgError], ...] = (
    SessionNotFoundError,
    RunNotFoundError,
    RunConflictError,
    ApprovalExpiredError,
    EventHistoryExpiredError,
    SessionConflictError,
    InvalidActionError,
    WorkspaceMismatchError,
    RunCapacityError,
    RuntimeClosedError,
    CapabilityUnavailableError,
    CheckpointConflictError,
)
# JSON-RPC's and LSP's standard codes, after gg's own on the wire tables.
RPC_ERRORS: tuple[type[GgError], ...] = (
    InvalidParamsError,
    NotInitializedError,
    MethodNotFoundError,
    InternalError,
)
ERROR_CLASSES: tuple[type[GgError], ...] = (*GG_ERRORS, *RPC_ERRORS)


def error_table(extra: Iterable[type[GgError]] = ()) -> tuple[type[GgError], ...]:
    """The core's errors with the capabilities' own (`extra`): gg's codes in order, then JSON-RPC's.

    A code or a symbol claimed twice is a wiring bug (two capabilities would answer alike for
    different things), except LSP's -32002 not_initialized, which data.code tells apart.
    """
    # A class listed twice (or a table passed back in) counts once.
    listed = dict.fromkeys(c for c in (*GG_ERRORS, *extra) if c not in RPC_ERRORS)
    own = sorted(listed, key=lambda c: -c.code)
    table = (*own, *RPC_ERRORS)
    for attr in ("code", "symbol"):
        seen: dict[object, str] = {}
        for cls in table:
            key = getattr(cls, attr)
            if key in seen and cls is not NotInitializedError:
                raise ValueError(f"error {attr} {key!r} claimed by {seen[key]} and {cls.__name__}")
            seen.setdefault(key, cls.__name__)
    return table
