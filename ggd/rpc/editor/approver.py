"""Approvals for plain LSP clients: window/showMessageRequest with Allow / Deny."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ggd.app.asking import AskingApprover
from ggd.protocol import Approval

from .client import ClientRequestError, ClientRequests, EditorCaps

if TYPE_CHECKING:
    from ggd.app import Run, RunManager

ALLOW = "Allow"
DENY = "Deny"
_WARNING = 2  # LSP MessageType.Warning
_MAX_MESSAGE = 2000
NO_DIALOG = "this editor cannot ask for approval (it does not support window/showMessageRequest)"


def approval_message(approval: Approval) -> str:
    """The question the editor shows: the tool's own summary and its risk."""
    text = f"gg wants to run {approval.tool_name}: {approval.summary}"
    if approval.risk == "dangerous":
        text += f"\nDANGEROUS: {approval.risk_reason or 'this command is risky'}"
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "..."


def editor_approver(runs: RunManager, requests: ClientRequests, caps: EditorCaps) -> AskingApprover:
    """Ask through showMessageRequest when the editor supports it; otherwise deny, saying why."""

    async def ask(_run: Run, approval: Approval) -> tuple[bool, str] | None:
        params = {
            "type": _WARNING,
            "message": approval_message(approval),
            "actions": [{"title": ALLOW}, {"title": DENY}],
        }
        try:
            picked = await requests.request("window/showMessageRequest", params)
        except ClientRequestError:
            return None  # the editor failed or went away: a denial
        allow = isinstance(picked, dict) and picked.get("title") == ALLOW
        return allow, "once"

    return AskingApprover(runs, ask if caps.message_request else None, NO_DIALOG)
