"""Choosing the conversation a command works on, and starting runs in it."""

from __future__ import annotations

from typing import Any, NamedTuple

from ggcli.rpc import Client, RpcError

WORKSPACE_MISMATCH = -32008

__all__ = ["SessionChoice", "demo_notice", "open_session", "start_run"]


class SessionChoice(NamedTuple):
    """Which session to use: resume an id, continue the newest, or create one."""

    resume: str | None = None
    continue_last: bool = False
    name: str | None = None
    model: str | None = None


def open_session(client: Client, choice: SessionChoice) -> dict[str, Any]:
    """The Snapshot of the chosen session (created when nothing is to be resumed)."""
    snap: dict[str, Any] | None = None
    if choice.resume:
        try:
            snap = client.request("gg/session.open", {"sessionId": choice.resume})
        except RpcError as exc:
            if exc.code == WORKSPACE_MISMATCH:
                raise RpcError(exc.code, elsewhere(client, choice.resume) or exc.message) from None
            raise
    elif choice.continue_last:
        page = client.request("gg/session.list", {"limit": 1}) or {}
        sessions = page.get("sessions") or []
        if sessions:
            snap = client.request("gg/session.open", {"sessionId": sessions[0]["id"]})
    if snap is None:
        params: dict[str, Any] = {}
        if choice.name:
            params["name"] = choice.name
        if choice.model:
            params["model"] = choice.model
        return dict(client.request("gg/session.create", params) or {})
    if choice.name and snap.get("name") != choice.name:
        snap = client.request(
            "gg/session.rename", {"sessionId": snap["sessionId"], "name": choice.name}
        )
    return dict(snap or {})


def elsewhere(client: Client, session_id: str, pages: int = 20) -> str | None:
    """Where a session of another workspace lives, as the command that resumes it there."""
    import shlex  # only on this error path: the one-shot path stays lean

    cursor: str | None = None
    for _ in range(pages):
        params: dict[str, Any] = {"limit": 500, "allWorkspaces": True}
        if cursor:
            params["cursor"] = cursor
        page = client.request("gg/session.list", params) or {}
        for row in page.get("sessions") or []:
            ws = row.get("workspace") or {}
            if row.get("id") == session_id and ws.get("root"):
                root = str(ws["root"])
                shown = shlex.quote(root)
                return (
                    f"session {session_id} belongs to the workspace {root}; "
                    f"resume it there: gg --workspace {shown} -r {session_id}"
                )
        cursor = page.get("nextCursor")
        if not cursor:
            return None
    return None


def start_run(
    client: Client,
    session_id: str,
    prompt: str,
    *,
    interactive: bool,
    approval: str | None = None,
    model: str | None = None,
    images: list[dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
) -> str:
    """gg/run.start with subscribe; returns the run id (`images`: the prompt's, ggcli.attach;
    `extra`: budget, reasoningEffort)."""
    params: dict[str, Any] = {
        "sessionId": session_id,
        "prompt": prompt,
        "subscribe": True,
        "interactive": interactive,
    }
    if approval:
        params["approvalMode"] = approval
    if model:
        params["model"] = model
    if images:
        params["images"] = images
    params.update(extra or {})
    result = client.request("gg/run.start", params) or {}
    return str(result["runId"])


def demo_notice(info: dict[str, Any]) -> str | None:
    """The one-line warning shown when the scripted demo model is answering."""
    if not info.get("demo"):
        return None
    return (
        "gg: the offline demo model is answering (no provider configured). "
        "Set OPENAI_API_KEY (and OPENAI_BASE_URL, GG_MODEL) or add a provider to "
        "GG_HOME/config.json, then restart ggd (`gg daemon stop`)."
    )
