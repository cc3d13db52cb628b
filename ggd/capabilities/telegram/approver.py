"""Approvals as inline Allow/Deny buttons in the chat the turn came from.

The approval is registered on the run like any other (clients attached to the session see it
and may answer it too); the chat gets a message with two buttons, and a button press answers
it. No answer within the timeout denies. Dangerous commands are marked as such and still run
only after an explicit Allow press: nothing here allows by default.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
from typing import TYPE_CHECKING, Protocol

from ggd.agent import ApprovalDecision
from ggd.app import Run, approval_for
from ggd.protocol import errors as E
from ggd.providers.types import ToolCall
from ggd.tools import ApprovalInfo, Tool

from .api import keyboard

if TYPE_CHECKING:
    from .api import BotApi

log = logging.getLogger("ggd.telegram")
DETAILS_LIMIT = 3000


class Approvals(Protocol):
    """Where the channel keeps button approvals waiting for a press."""

    api: BotApi
    approvals: dict[str, tuple[int, Run, int]]


def prompt_text(tool: Tool, info: ApprovalInfo) -> str:
    """The approval message (HTML): what would run, and a warning for dangerous commands."""
    lines = [f"<b>Approve {html.escape(tool.name)}?</b>", html.escape(info.summary)]
    if info.details:
        lines.append(f"<pre>{html.escape(info.details[:DETAILS_LIMIT])}</pre>")
    if info.risk == "dangerous":
        why = html.escape(info.risk_reason or "it can destroy data")
        lines.append(f"⚠️ <b>Dangerous</b>: {why}. It runs only if you press Allow.")
    return "\n".join(lines)


class ButtonApprover:
    """Approver of one chat's turns."""

    def __init__(self, channel: Approvals, chat_id: int, timeout: float) -> None:
        self.channel = channel
        self.chat_id = chat_id
        self.timeout = timeout

    async def decide(
        self, run: Run, call: ToolCall, tool: Tool, info: ApprovalInfo
    ) -> ApprovalDecision:
        """Send the buttons, wait for a press (or a client's answer); a timeout denies."""
        approval = approval_for(run, call, tool, info)
        pending = run.add_approval(approval)
        aid = approval.id
        buttons = keyboard([[("Allow", f"ap:{aid}:y"), ("Deny", f"ap:{aid}:n")]])
        text = prompt_text(tool, info)
        # Registered before the buttons go out: a press can be polled before send() returns.
        self.channel.approvals[aid] = (self.chat_id, run, 0)
        try:
            msg = await self.channel.api.send(self.chat_id, text, buttons)
        except Exception:
            self.channel.approvals.pop(aid, None)
            log.warning("approval buttons not delivered", exc_info=True)
            with contextlib.suppress(E.ApprovalExpiredError):
                run.answer(aid, False, "once", by="telegram_unreachable")
            return ApprovalDecision(
                allow=False, reason="the approval could not be sent to Telegram"
            )
        try:
            allow, _scope, by = await asyncio.wait_for(asyncio.shield(pending.future), self.timeout)
        except TimeoutError:
            with contextlib.suppress(E.ApprovalExpiredError):
                run.answer(aid, False, "once", by="timeout")
            allow, by = False, "timeout"
        finally:
            self.channel.approvals.pop(aid, None)
        verdict = "Allowed" if allow else ("Timed out: denied" if by == "timeout" else "Denied")
        with contextlib.suppress(Exception):
            await self.channel.api.edit(self.chat_id, msg.message_id, f"{text}\n\n<i>{verdict}</i>")
        if allow:
            return ApprovalDecision(allow=True)
        reason = "the user denied it" if by == "user" else f"no approval ({by})"
        return ApprovalDecision(allow=False, reason=reason)
