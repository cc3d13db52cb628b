"""Approvers: who answers a tool call that needs approval, passed to every run as a value.

- `InteractiveApprover`: the policy table of `policy.py`, asking attached clients when it says ask.
- `UnattendedApprover`: runs the daemon starts itself (scheduled jobs, Telegram without buttons):
  every approval-gated call is denied unless the job opted in (`allow_all`); dangerous commands
  are denied even then.

There is no default approver: a run started without one is refused, never allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ggd.agent import ApprovalDecision
from ggd.agent.hooks import HOOK_ALLOW, HOOK_ASK
from ggd.agent.loopguard import LoopAsk
from ggd.protocol import Approval
from ggd.providers.types import ToolCall
from ggd.tools import ApprovalInfo, Tool

from .policy import PLAN_MODE, PLAN_REFUSAL, PolicyDecision, decide

if TYPE_CHECKING:
    from .run import Run


def approval_for(run: Run, call: ToolCall, tool: Tool, info: ApprovalInfo) -> Approval:
    """The Approval clients are shown for one call: what every approver that asks someone sends."""
    return Approval(
        id=run.new_approval_id(),
        tool_call_id=call.id,
        tool_name=tool.name,
        summary=info.summary,
        details=info.details,
        arguments=call.arguments,
        risk=info.risk,
        risk_reason=info.risk_reason or None,
    )


_HOOK_ASK_UNATTENDED = PolicyDecision(
    "deny", "a PreToolUse hook asked for a person's approval, and this run cannot ask anyone"
)


class Approver(Protocol):
    """Decides one approval-gated call of a run."""

    async def decide(
        self, run: Run, call: ToolCall, tool: Tool, info: ApprovalInfo
    ) -> ApprovalDecision:
        """Allow or deny, with the reason the model sees on a denial."""
        ...


class InteractiveApprover:
    """The approval policy table; 'ask' waits for any attached client to answer."""

    def __init__(self, session_allows: Callable[[str], set[str]]) -> None:
        self._session_allows = session_allows

    async def decide(
        self, run: Run, call: ToolCall, tool: Tool, info: ApprovalInfo
    ) -> ApprovalDecision:
        """Policy first; ask clients only when the table says ask."""
        if run.approval_mode == PLAN_MODE:  # before session allows: plan mode runs no writes
            return ApprovalDecision(allow=False, reason=PLAN_REFUSAL)
        dangerous = info.risk == "dangerous"
        hook_ask = info.extra.get(HOOK_ASK)
        if not dangerous and not hook_ask:
            # A PreToolUse hook's allow skips asking; never a dangerous command's approval.
            if info.extra.get(HOOK_ALLOW) or tool.name in self._session_allows(run.session_id):
                return ApprovalDecision(allow=True)
        verdict = decide(run.approval_mode, run.interactive, dangerous)
        if hook_ask and verdict.verdict == "allow":  # a hook wants a person even in yolo mode
            verdict = PolicyDecision("ask") if run.interactive else _HOOK_ASK_UNATTENDED
        if verdict.verdict != "ask":
            return ApprovalDecision(allow=verdict.verdict == "allow", reason=verdict.reason)
        approval = approval_for(run, call, tool, info)
        pending = run.add_approval(approval)
        allow, _scope, by = await pending.future
        reason = "" if allow else ("the user denied it" if by == "user" else f"no approval ({by})")
        return ApprovalDecision(allow=allow, reason=reason)


class UnattendedApprover:
    """Nobody is there to ask: deny gated calls unless opted in; never allow dangerous ones."""

    def __init__(self, allow_all: bool = False, who: str = "an unattended run") -> None:
        self.allow_all = allow_all
        self.who = who

    async def decide(
        self, run: Run, call: ToolCall, tool: Tool, info: ApprovalInfo
    ) -> ApprovalDecision:
        """Deny dangerous always; allow the rest only when the job opted in."""
        if run.approval_mode == PLAN_MODE:
            return ApprovalDecision(allow=False, reason=PLAN_REFUSAL)
        if info.risk == "dangerous":
            return ApprovalDecision(
                allow=False,
                reason=f"dangerous commands are never run by {self.who}; nobody can approve them",
            )
        if info.extra.get(HOOK_ASK):
            return ApprovalDecision(allow=False, reason=_HOOK_ASK_UNATTENDED.reason)
        if self.allow_all or info.extra.get(HOOK_ALLOW):
            return ApprovalDecision(allow=True)
        return ApprovalDecision(
            allow=False,
            reason=f"{self.who} cannot ask for approval, so {tool.name} was denied; "
            "the job must opt in (allowAll) to run approval-gated tools",
        )


LOOP_GUARD_TOOL = "loop_guard"


def loop_asker(run: Run) -> LoopAsk | None:
    """How the loop guard asks whether a repeating run may go on: an interactive run asks its
    clients as an approval (tool name `loop_guard`, so any client can answer it); a run nobody
    watches is stopped (None)."""
    if not run.interactive:
        return None

    async def ask(call: ToolCall, message: str) -> bool:
        approval = Approval(
            id=run.new_approval_id(),
            tool_call_id=call.id,
            tool_name=LOOP_GUARD_TOOL,
            summary=f"The run repeats {call.name} with the same arguments: let it go on?",
            details=message,
            arguments={"tool": call.name, "arguments": call.arguments},
            risk="normal",
            risk_reason="loop guard",
        )
        allow, _scope, _by = await run.add_approval(approval).future
        return allow

    return ask


__all__ = [
    "LOOP_GUARD_TOOL",
    "Approver",
    "InteractiveApprover",
    "UnattendedApprover",
    "approval_for",
    "loop_asker",
]
