"""An approver that asks one client directly (an editor's dialog) besides every attached client.

For adapters of other protocols (plain LSP's window/showMessageRequest, ACP's
session/request_permission): the policy table decides first; when it says ask, the approval is
registered on the run, so every gg client sees it pending and may answer it, and the adapter's
own `ask` is put to its client at the same time. The first answer wins.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ggd.agent import ApprovalDecision
from ggd.protocol import Approval
from ggd.protocol import errors as E
from ggd.providers.types import ToolCall
from ggd.tools import ApprovalInfo, Tool

from .approvers import approval_for
from .policy import decide

if TYPE_CHECKING:
    from .run import Run
    from .runs import RunManager

# The client's answer: (allow, scope) with scope "once" or "session"; None = dismissed (denied).
Ask = Callable[["Run", Approval], Awaitable[tuple[bool, str] | None]]


class AskingApprover:
    """The approval policy table; 'ask' goes to one client's `ask` and to every gg client."""

    def __init__(self, runs: RunManager, ask: Ask | None, cannot_ask: str = "") -> None:
        self.runs = runs
        self.ask = ask
        self.cannot_ask = cannot_ask or "this client cannot answer approvals"

    async def decide(
        self, run: Run, call: ToolCall, tool: Tool, info: ApprovalInfo
    ) -> ApprovalDecision:
        """Policy first; ask only when the table says ask, and deny with a reason if nobody can."""
        dangerous = info.risk == "dangerous"
        if not dangerous and tool.name in self.runs.session_allows.get(run.session_id, set()):
            return ApprovalDecision(allow=True)
        verdict = decide(run.approval_mode, run.interactive, dangerous)
        if verdict.verdict != "ask":
            return ApprovalDecision(allow=verdict.verdict == "allow", reason=verdict.reason)
        if self.ask is None:
            return ApprovalDecision(
                allow=False, reason=f"{tool.name} was denied: {self.cannot_ask}"
            )
        approval = approval_for(run, call, tool, info)
        pending = run.add_approval(approval)
        asking = asyncio.ensure_future(self.ask(run, approval))
        try:
            first: set[asyncio.Future[Any]] = {pending.future, asking}
            await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
            if not pending.future.done():
                answer = asking.result() if not asking.exception() else None
                allow, scope = answer if answer is not None else (False, "once")
                with contextlib.suppress(E.ApprovalExpiredError):  # answered elsewhere meanwhile
                    self.runs.approve(run, approval.id, allow, scope)
            allow, _scope, by = await pending.future
        finally:
            asking.cancel()
        reason = "" if allow else ("the user denied it" if by == "user" else f"no approval ({by})")
        return ApprovalDecision(allow=allow, reason=reason)


__all__ = ["Ask", "AskingApprover"]
