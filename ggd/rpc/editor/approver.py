"""Approvals for plain LSP clients: window/showMessageRequest with Allow / Deny.

Every client is asked, whatever it declares: LSP says the presence of `window.showMessage`
declares support, but real clients handle the request without declaring it (eglot 1.9, Emacs
29.1). A client that answers the request with an error cannot show it: the call is denied with
a reason that says how to answer from another gg client instead.

A client that set `initializationOptions.asyncApprovals` answers later: its handler returns
null at once (Neovim 0.7 must answer a server request synchronously) and its picker's callback
sends `gg/run.approve` with the `approve` params carried by the chosen action.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any

from ggd.app.asking import AskingApprover
from ggd.protocol import Approval

from .client import ClientRequestError, ClientRequests, EditorCaps

if TYPE_CHECKING:
    from ggd.app import Run, RunManager

ALLOW = "Allow"
DENY = "Deny"
_WARNING = 2  # LSP MessageType.Warning
_MAX_MESSAGE = 2000


def approval_message(approval: Approval) -> str:
    """The question the editor shows: the tool's own summary and its risk."""
    text = f"gg wants to run {approval.tool_name}: {approval.summary}"
    if approval.risk == "dangerous":
        text += f"\nDANGEROUS: {approval.risk_reason or 'this command is risky'}"
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "..."


def cannot_show(error: str, session_id: str) -> str:
    """The denial reason for an editor that failed the dialog: how to answer elsewhere."""
    return (
        f"this editor could not show the approval (window/showMessageRequest: {error}). "
        f"Answer approvals from another gg client while the run waits: the web UI or "
        f"`gg -r {session_id}` in the workspace"
    )


def _actions(run: Run, approval: Approval, later: bool) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = [{"title": ALLOW}, {"title": DENY}]
    if later:  # what the client's callback sends as gg/run.approve
        for action, allow in zip(actions, (True, False), strict=True):
            action["approve"] = {"runId": run.id, "approvalId": approval.id, "allow": allow}
    return actions


class EditorApprover:
    """The racing approver (`AskingApprover`) asking one editor, plus why an editor failed."""

    def __init__(self, runs: RunManager, requests: ClientRequests, caps: EditorCaps) -> None:
        self.requests = requests
        self.caps = caps
        self._inner = AskingApprover(runs, self._ask)
        self._failed: dict[str, str] = {}  # tool call id -> the editor's error

    async def decide(self, run: Run, call: Any, tool: Any, info: Any) -> Any:
        """The policy table; ask the editor when it says ask; name a dialog that failed.

        The `Approver` protocol of ggd.app; its call, tool and decision types belong to
        packages the rpc layer does not import, so they pass through untyped here.
        """
        try:
            decision = await self._inner.decide(run, call, tool, info)
        finally:
            failed = self._failed.pop(call.id, None)
        if failed is not None and not decision.allow:
            why = cannot_show(failed, run.session_id)
            return dataclasses.replace(decision, reason=f"{tool.name} was denied: {why}")
        return decision

    async def _ask(self, run: Run, approval: Approval) -> tuple[bool, str] | None:
        later = self.caps.async_approvals
        params = {
            "type": _WARNING,
            "message": approval_message(approval),
            "actions": _actions(run, approval, later),
        }
        try:
            picked = await self.requests.request("window/showMessageRequest", params)
        except ClientRequestError as exc:
            if exc.delivered:
                self._failed[approval.tool_call_id or ""] = str(exc)
            return None  # the editor failed or went away: a denial
        title = picked.get("title") if isinstance(picked, dict) else None
        if later and title not in (ALLOW, DENY):
            # The answer comes as gg/run.approve; the racing approver takes it from the run.
            await asyncio.Event().wait()
        return title == ALLOW, "once"


def editor_approver(runs: RunManager, requests: ClientRequests, caps: EditorCaps) -> EditorApprover:
    """Ask through showMessageRequest; deny with a way out when the editor cannot show it."""
    return EditorApprover(runs, requests, caps)
