"""Protocol Message dicts, their OpenAI chat form, and repair of tool calls left without a result."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from ggd.providers.types import ToolCall

Message = dict[str, Any]
# An image id -> its `data:` URL, or None when the model takes no images (ggd.tools.images).
ImageUrls = Callable[[str], str | None]

INTERRUPTED = "interrupted, result unavailable"
CANCELED = "canceled"


def now_ms() -> int:
    """Milliseconds since the epoch, the timestamp unit of every message."""
    return int(time.time() * 1000)


def user_message(text: str, images: list[dict[str, Any]] | None = None) -> Message:
    """A protocol user message; `images` are stored image refs (ImageRef.wire())."""
    msg: Message = {"role": "user", "content": text, "timestamp": now_ms()}
    if images:
        msg["images"] = images
    return msg


def assistant_message(
    text: str,
    tool_calls: list[ToolCall] | None = None,
    stop_reason: str = "end_turn",
    error: str | None = None,
    *,
    thinking: str = "",
    replay: dict[str, Any] | None = None,
) -> Message:
    """A protocol assistant message, with its tool calls, reasoning and replay data if any."""
    msg: Message = {"role": "assistant", "content": text, "timestamp": now_ms()}
    if thinking:
        msg["thinking"] = thinking
    if replay:
        msg["replay"] = replay
    if tool_calls:
        msg["toolCalls"] = [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in tool_calls
        ]
    msg["stopReason"] = stop_reason
    if error is not None:
        msg["error"] = error
    return msg


def tool_message(
    call_id: str,
    tool_name: str,
    output: str,
    is_error: bool = False,
    images: list[dict[str, Any]] | None = None,
) -> Message:
    """A protocol tool-result message; `images` are stored image refs the tool returned."""
    msg: Message = {
        "role": "tool",
        "content": output,
        "toolCallId": call_id,
        "toolName": tool_name,
        "isError": is_error,
        "timestamp": now_ms(),
    }
    if images:
        msg["images"] = images
    return msg


def image_parts(images: list[dict[str, Any]], urls: ImageUrls | None) -> list[dict[str, Any]]:
    """OpenAI content parts for stored image refs: image_url parts, or a note per image the
    request cannot carry (the model takes no images, or the file is gone), never a silent drop.
    """
    parts: list[dict[str, Any]] = []
    for ref in images:
        image_id = str(ref.get("id", ""))
        url = urls(image_id) if urls is not None else None
        if url is not None:
            parts.append({"type": "image_url", "image_url": {"url": url}})
        else:
            why = "this model takes no images" if urls is None else "it is no longer stored"
            parts.append({"type": "text", "text": f"[image {image_id[:16]} left out: {why}]"})
    return parts


def _content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Parts as they are when one is an image, else one string (a text-only model, or a chat
    template that expects strings, never sees a list)."""
    if any(p.get("type") != "text" for p in parts):
        return parts
    return "\n\n".join(str(p.get("text", "")) for p in parts)


def to_openai(msg: Message, urls: ImageUrls | None = None) -> dict[str, Any]:
    """Convert one protocol Message to an OpenAI chat message.

    A user message with images becomes a list of content parts: its text, then its images.
    """
    role = msg.get("role")
    content = msg.get("content") or ""
    if role == "user" and msg.get("images"):
        parts = [{"type": "text", "text": content}] if content else []
        return {"role": "user", "content": _content(parts + image_parts(msg["images"], urls))}
    if role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": content or None}
        calls = msg.get("toolCalls") or []
        if calls:
            out["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {
                        "name": c["name"],
                        "arguments": json.dumps(c.get("arguments") or {}, ensure_ascii=False),
                    },
                }
                for c in calls
            ]
        elif out["content"] is None:
            out["content"] = ""
        if msg.get("replay"):
            out["gg_replay"] = msg["replay"]
        return out
    if role == "tool":
        return {"role": "tool", "tool_call_id": msg.get("toolCallId", ""), "content": content}
    return {"role": role or "user", "content": content}


def from_openai(msg: dict[str, Any]) -> Message:
    """Convert one OpenAI chat message back to a protocol Message (no timestamp)."""
    role = msg.get("role", "user")
    out: Message = {"role": role, "content": msg.get("content") or ""}
    if role == "assistant" and msg.get("tool_calls"):
        out["toolCalls"] = [
            {
                "id": c["id"],
                "name": c["function"]["name"],
                "arguments": json.loads(c["function"].get("arguments") or "{}"),
            }
            for c in msg["tool_calls"]
        ]
    if role == "tool":
        out["toolCallId"] = msg.get("tool_call_id", "")
    return out


def repair(messages: list[Message]) -> list[Message]:
    """Give every tool call a result right after its assistant message; drop orphan results.

    A call without a result (a crash, a cancel) gets a synthetic "interrupted" error result;
    a tool message that no preceding assistant call owns is left out, since chat APIs reject it.
    """
    out: list[Message] = []
    i, n = 0, len(messages)
    while i < n:
        msg = messages[i]
        role = msg.get("role")
        if role == "tool":
            i += 1
            continue
        calls = (msg.get("toolCalls") or []) if role == "assistant" else []
        out.append(msg)
        i += 1
        if not calls:
            continue
        results: dict[str, Message] = {}
        while i < n and messages[i].get("role") == "tool":
            cid = messages[i].get("toolCallId", "")
            results.setdefault(cid, messages[i])
            i += 1
        for call in calls:
            out.append(
                results.get(call["id"])
                or tool_message(call["id"], call.get("name", ""), INTERRUPTED, True)
            )
    return out


def trailing_dangling(messages: list[Message]) -> list[dict[str, Any]]:
    """Tool calls of the last assistant message that have no result yet (a run that crashed)."""
    for idx in range(len(messages) - 1, -1, -1):
        msg = messages[idx]
        if msg.get("role") == "tool":
            continue
        if msg.get("role") != "assistant":
            return []
        done = {m.get("toolCallId") for m in messages[idx + 1 :]}
        return [c for c in msg.get("toolCalls") or [] if c["id"] not in done]
    return []


def to_openai_request(
    system: str, messages: list[Message], urls: ImageUrls | None = None
) -> list[dict[str, Any]]:
    """The chat messages of one request: system prompt, then the repaired conversation.

    `urls` gives the data URL of a stored image (None: the model takes no images). Chat
    Completions tool messages hold text only, so the images tool results returned (`read` of
    an image) follow the run of tool messages as one user message, each after a line naming
    its call, as other agents do; the tool message itself says the image follows.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    pending: list[dict[str, Any]] = []  # image parts of tool results, sent after the results
    for msg in repair(messages):
        role = msg.get("role")
        if pending and role != "tool":
            out.append({"role": "user", "content": _content(pending)})
            pending = []
        # An empty assistant message (e.g. canceled before any text) carries nothing for the model.
        if role == "assistant" and not msg.get("content") and not msg.get("toolCalls"):
            continue
        out.append(to_openai(msg, urls))
        if role == "tool" and msg.get("images"):
            name = msg.get("toolName") or "tool"
            head = f"The image returned by {name} (call {msg.get('toolCallId', '')}):"
            pending += [{"type": "text", "text": head}, *image_parts(msg["images"], urls)]
    if pending:
        out.append({"role": "user", "content": _content(pending)})
    return out
