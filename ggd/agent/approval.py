"""Approval hook: the app decides policy; the loop only asks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ggd.providers.types import ToolCall
from ggd.tools.base import ApprovalInfo, Tool


@dataclass(frozen=True)
class ApprovalDecision:
    """The answer to one approval request."""

    allow: bool
    reason: str = ""


Approver = Callable[[ToolCall, Tool, ApprovalInfo], Awaitable[ApprovalDecision]]


def needs_asking(info: ApprovalInfo) -> bool:
    """True when the loop must call the approver for this call."""
    return info.needs_approval or info.risk == "dangerous"


async def allow_all(call: ToolCall, tool: Tool, info: ApprovalInfo) -> ApprovalDecision:
    """An approver that allows everything (tests and trusted callers)."""
    return ApprovalDecision(allow=True)


async def deny_all(call: ToolCall, tool: Tool, info: ApprovalInfo) -> ApprovalDecision:
    """An approver that denies everything it is asked about."""
    return ApprovalDecision(allow=False, reason="no approver is available")
