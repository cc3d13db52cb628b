"""gg run events and session messages as ACP session/update payloads (pure functions)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

EDIT_TOOLS = ("write", "edit")
_KINDS = {
    "read": "read",
    "list": "search",
    "grep": "search",
    "todo_write": "think",
    "kb_search": "search",
    "edit": "edit",
    "write": "edit",
    "bash": "execute",
}

# gg approval modes offered as ACP session modes (ids are gg's names; ggd/app/policy.py). For an
# interactive client `on-request` behaves as `auto`, so it is not offered twice.
MODES: list[dict[str, str]] = [
    {"id": "auto", "name": "Ask", "description": "Ask before writes and commands (gg's default)."},
    {
        "id": "yolo",
        "name": "Allow all",
        "description": "Writes and commands run; dangerous commands still ask.",
    },
    {
        "id": "never",
        "name": "Never ask",
        "description": "Writes and commands run; dangerous commands are denied.",
    },
    {
        "id": "plan",
        "name": "Plan",
        "description": "Read-only tools only: research and propose a plan; switch mode to run it.",
    },
]
MODE_IDS = {m["id"] for m in MODES} | {"on-request"}


def tool_kind(name: str) -> str:
    """The ACP ToolKind of a gg tool name."""
    if name in _KINDS:
        return _KINDS[name]
    if "fetch" in name or name.startswith("browser"):
        return "fetch"
    return "other"


def _abs(workspace: Path, raw: Any) -> str | None:
    if not isinstance(raw, str) or not raw:
        return None
    p = Path(raw).expanduser()
    return str(p if p.is_absolute() else (workspace / p).resolve())


def file_path(workspace: Path, raw: Any) -> str | None:
    """A tool's path argument as the absolute path an editor names the file by."""
    return _abs(workspace, raw)


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def proposed_diff(
    workspace: Path, name: str, args: dict[str, Any], base: str | None = None
) -> dict[str, Any] | None:
    """The diff a write or edit would make to base (the editor's buffer), else to the disk file."""
    path = _abs(workspace, args.get("path"))
    if path is None or name not in EDIT_TOOLS:
        return None
    old = base if base is not None else _read(path)
    if name == "write":
        new = args.get("content")
        if not isinstance(new, str):
            return None
    else:
        if old is None or not isinstance(args.get("edits"), list):
            return None
        new = old
        for e in args["edits"]:
            if not isinstance(e, dict) or not isinstance(e.get("oldText"), str):
                return None
            new = new.replace(e["oldText"], str(e.get("newText", "")), 1)
    return {"type": "diff", "path": path, "oldText": old, "newText": new}


def tool_call(
    workspace: Path,
    call_id: str,
    name: str,
    title: str,
    args: dict[str, Any],
    status: str,
    base: str | None = None,
) -> dict[str, Any]:
    """A ToolCall (the body of a tool_call update or of a permission request)."""
    call: dict[str, Any] = {
        "toolCallId": call_id,
        "title": title or name,
        "kind": tool_kind(name),
        "status": status,
        "rawInput": args,
    }
    path = _abs(workspace, args.get("path"))
    if path is not None:
        call["locations"] = [{"path": path}]
    diff = proposed_diff(workspace, name, args, base)
    if diff is not None:
        call["content"] = [diff]
    return call


def text(kind: str, value: str) -> dict[str, Any]:
    """A text chunk update (agent_message_chunk, agent_thought_chunk, user_message_chunk)."""
    return {"sessionUpdate": kind, "content": {"type": "text", "text": value}}


def tool_done(call_id: str, output: str, failed: bool) -> dict[str, Any]:
    """The tool_call_update that closes a tool call with its output."""
    update: dict[str, Any] = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": call_id,
        "status": "failed" if failed else "completed",
        "rawOutput": {"output": output},
    }
    if output:
        update["content"] = [{"type": "content", "content": {"type": "text", "text": output}}]
    return update


def event_update(workspace: Path, ev: dict[str, Any]) -> dict[str, Any] | None:
    """The session/update for one gg run event (None for events with no ACP counterpart)."""
    kind = ev.get("type")
    if kind == "text_delta":
        return text("agent_message_chunk", str(ev.get("text", "")))
    if kind == "thinking_delta":
        return text("agent_thought_chunk", str(ev.get("text", "")))
    if kind == "tool_call_start":
        call = tool_call(
            workspace,
            str(ev.get("toolCallId")),
            str(ev.get("toolName")),
            str(ev.get("summary") or ""),
            dict(ev.get("arguments") or {}),
            "in_progress",
        )
        return {"sessionUpdate": "tool_call", **call}
    if kind == "tool_call_finish":
        return tool_done(
            str(ev.get("toolCallId")), str(ev.get("output") or ""), bool(ev.get("isError"))
        )
    if kind in ("child_run_started", "child_run_progress", "child_run_finished"):
        return child_update(ev)
    if kind == "plan_updated":
        return plan(list(ev.get("todos") or []))
    if kind == "usage" and ev.get("contextWindow"):  # ACP's usage is context fill of a known size
        used = ev.get("contextTokens") or ev.get("totalTokens") or 0
        update: dict[str, Any] = {
            "sessionUpdate": "usage_update",
            "used": int(used),
            "size": int(ev["contextWindow"]),
        }
        # ACP's cost is the session's cumulative cost; left out when no price is known.
        session = ev.get("session")
        cost = session.get("costUsd") if isinstance(session, dict) else None
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            update["cost"] = {"amount": float(cost), "currency": "USD"}
        return update
    return None


def child_update(ev: dict[str, Any]) -> dict[str, Any] | None:
    """A subagent's event as an update of the `task` tool call that started it.

    The child shows as that tool call: its title names the agent, its content is the child's
    latest line of progress, and its own tool_call_update closes it with the child's answer.
    """
    kind = ev.get("type")
    agent = str(ev.get("agent") or "agent")
    update: dict[str, Any] = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": str(ev.get("toolCallId")),
        "status": "in_progress",
    }
    if kind == "child_run_started":
        what = str(ev.get("description") or "").strip()
        update["title"] = f"{agent}: {what}" if what else agent
        line = f"{agent} started"
    elif kind == "child_run_progress":
        line = f"{agent} · {ev.get('text', '')}"
    elif kind == "child_run_finished":
        line = f"{agent} {ev.get('status', 'finished')} ({ev.get('turns', 0)} turns, "
        line += f"{ev.get('toolCalls', 0)} tools)"
    else:
        return None
    update["content"] = [{"type": "content", "content": {"type": "text", "text": line}}]
    update["rawOutput"] = {
        "childRunId": ev.get("childRunId"),
        "childSessionId": ev.get("childSessionId"),
        "agent": agent,
    }
    return update


def plan(todos: list[dict[str, Any]]) -> dict[str, Any]:
    """The ACP `plan` update of a gg todo list (the whole list; gg has no priorities: medium)."""
    return {
        "sessionUpdate": "plan",
        "entries": [
            {"content": str(t.get("content", "")), "priority": "medium", "status": t.get("status")}
            for t in todos
            if isinstance(t, dict)
        ],
    }


def stop_reason(ev: dict[str, Any]) -> str | None:
    """The ACP stopReason of a terminal gg event (None for run_failed: that is an error)."""
    kind = ev.get("type")
    if kind == "run_completed":
        return "end_turn"
    if kind == "run_canceled":
        return "cancelled"
    if kind == "run_failed" and "turn" in str(ev.get("errorCode") or ""):
        return "max_turn_requests"
    return None


def history(
    workspace: Path,
    messages: list[dict[str, Any]],
    images: dict[str, dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """A session's messages replayed as session/update payloads (for session/load).

    `images`: ACP image blocks by gg image id (fetched with gg/image.get), replayed after the
    text of the user message that attached them.
    """
    out: list[dict[str, Any]] = []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "user" and content:
            out.append(text("user_message_chunk", str(content)))
        if role == "user":
            for ref in m.get("images") or []:
                block = (images or {}).get(str(ref.get("id")))
                if block is not None:
                    out.append({"sessionUpdate": "user_message_chunk", "content": block})
        elif role == "assistant":
            if content:
                out.append(text("agent_message_chunk", str(content)))
            for c in m.get("toolCalls") or []:
                name = str(c.get("name"))
                args = dict(c.get("arguments") or {})
                call = tool_call(workspace, str(c.get("id")), name, name, args, "pending")
                call.pop("content", None)  # the file has moved on: no stale diff
                out.append({"sessionUpdate": "tool_call", **call})
        elif role == "tool" and m.get("toolCallId"):
            out.append(tool_done(str(m["toolCallId"]), str(content or ""), bool(m.get("isError"))))
    return out


def prompt_text(blocks: Any) -> str:
    """The ACP prompt's content blocks as gg's one prompt string."""
    parts: list[str] = []
    for b in blocks if isinstance(blocks, list) else []:
        if not isinstance(b, dict):
            continue
        t = b.get("type")
        if t == "text":
            parts.append(str(b.get("text", "")))
        elif t == "resource_link":
            parts.append(f"@{b.get('uri', '')}")
        elif t == "resource":
            res = b.get("resource") or {}
            if "text" in res:
                parts.append(f'<context uri="{res.get("uri", "")}">\n{res["text"]}\n</context>')
    return "\n\n".join(p for p in parts if p)


def prompt_images(blocks: Any) -> list[dict[str, Any]]:
    """The ACP prompt's `image` blocks as gg/run.start `images` (base64 and its MIME type).

    ggd checks, downscales and stores them; a bad image or a model that takes none is its
    invalid-params error, passed to the editor as is.
    """
    out: list[dict[str, Any]] = []
    for b in blocks if isinstance(blocks, list) else []:
        if isinstance(b, dict) and b.get("type") == "image" and isinstance(b.get("data"), str):
            item: dict[str, Any] = {"data": b["data"]}
            if isinstance(b.get("mimeType"), str):
                item["mimeType"] = b["mimeType"]
            out.append(item)
    return out


def user_image_ids(messages: list[dict[str, Any]]) -> list[str]:
    """The ids of the images user messages attached, in order, each once."""
    ids: dict[str, None] = {}
    for m in messages:
        if m.get("role") == "user":
            ids.update((str(r.get("id")), None) for r in m.get("images") or [] if r.get("id"))
    return list(ids)


__all__ = [
    "EDIT_TOOLS",
    "MODES",
    "MODE_IDS",
    "event_update",
    "file_path",
    "history",
    "plan",
    "prompt_images",
    "prompt_text",
    "proposed_diff",
    "stop_reason",
    "text",
    "tool_call",
    "tool_kind",
    "user_image_ids",
]
