"""OpenAI chat format -> Anthropic Messages request parts, with prompt-cache breakpoints.

Messages: leading system (and developer) messages become the top-level `system` (a later one
stays in place, as user text); tool results become
`tool_result` blocks of a user message; consecutive messages of one role merge into one (the API
wants user and assistant to alternate, tool results first in their user message); `image_url`
parts become `image` blocks (a data URL as base64, an http(s) URL as a url source); an assistant
message's `gg_replay` of kind "anthropic" puts its thinking blocks, signatures intact, back in
front of its text and tool calls, as the API requires in a tool loop with thinking on.

Caching (`cache_control` breakpoints, at most 4 per request): the last tool, the system prompt,
the last block of the conversation, and the last block of the message that ended the previous
request (the user message before the last one). Each step of a tool loop then reads everything
the step before it wrote, and writes only its own new turn.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "MAX_BREAKPOINTS",
    "add_cache_breakpoints",
    "convert_messages",
    "convert_tools",
    "thinking_allowed",
]

MAX_BREAKPOINTS = 4
_EPHEMERAL = {"type": "ephemeral"}
_THINKING = ("thinking", "redacted_thinking")
_DATA_URL = re.compile(r"data:(?P<type>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)", re.DOTALL)
_BAD_ID = re.compile(r"[^a-zA-Z0-9_-]")
# The API wants a user message first; a history that starts otherwise (a compacted one) gets this.
_OPENING = "(continuing the conversation)"


def convert_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function tools -> Anthropic tools ({name, description, input_schema})."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        fn = tool.get("function", tool)
        item: dict[str, Any] = {"name": str(fn.get("name", ""))}
        if fn.get("description"):
            item["description"] = str(fn["description"])
        item["input_schema"] = fn.get("parameters") or {"type": "object", "properties": {}}
        out.append(item)
    return out


def convert_messages(
    messages: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) of an Anthropic request, from OpenAI chat messages."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for msg in messages:
        role = msg.get("role")
        content = msg.get("content")
        if role in ("system", "developer") and not out:
            system += [b for b in _content_blocks(content) if b["type"] == "text"]
        elif role in ("system", "developer"):
            # A later one stays where it was said: moved into `system` it would change the start
            # of every later request, and the cache with it.
            _append(out, "user", [b for b in _content_blocks(content) if b["type"] == "text"])
        elif role == "assistant":
            _append(out, "assistant", _assistant_blocks(msg))
        elif role == "tool":
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": tool_id(msg.get("tool_call_id")),
            }
            blocks = _content_blocks(content)
            if blocks:
                result["content"] = blocks
            _append(out, "user", [result])
        else:
            _append(out, "user", _content_blocks(content))
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": _OPENING}]})
    return system, out


def tool_id(raw: Any) -> str:
    """A tool call id in the characters the API accepts (others become "_"), never empty."""
    return _BAD_ID.sub("_", str(raw or "")) or "toolu_missing"


def _assistant_blocks(msg: dict[str, Any]) -> list[dict[str, Any]]:
    replay = msg.get("gg_replay")
    blocks: list[dict[str, Any]] = []
    if isinstance(replay, dict) and replay.get("kind") == "anthropic":
        for b in replay.get("thinking") or []:
            if isinstance(b, dict) and b.get("type") in _THINKING:
                blocks.append(dict(b))
    said = [b for b in _content_blocks(msg.get("content")) if b["type"] == "text"]
    calls = []
    for call in msg.get("tool_calls") or []:
        fn = call.get("function") or {}
        calls.append(
            {
                "type": "tool_use",
                "id": tool_id(call.get("id")),
                "name": str(fn.get("name", "")),
                "input": _arguments(fn.get("arguments")),
            }
        )
    # Thinking alone (a canceled answer) is no message the API takes back.
    return [*blocks, *said, *calls] if said or calls else []


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _content_blocks(content: Any) -> list[dict[str, Any]]:
    """Text and image blocks of a string or a list of OpenAI content parts; no empty text."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content.strip() else []
    blocks: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and str(part.get("text") or "").strip():
            blocks.append({"type": "text", "text": str(part["text"])})
        elif kind == "image_url":
            image = _image(part.get("image_url"))
            if image is not None:
                blocks.append(image)
    return blocks


def _image(ref: Any) -> dict[str, Any] | None:
    url = ref.get("url") if isinstance(ref, dict) else ref
    if not isinstance(url, str):
        return None
    found = _DATA_URL.fullmatch(url)
    if found is not None:
        source = {"type": "base64", "media_type": found["type"], "data": found["data"]}
        return {"type": "image", "source": source}
    if url.startswith(("http://", "https://")):
        return {"type": "image", "source": {"type": "url", "url": url}}
    return None


def _append(out: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if not blocks:
        return
    if out and out[-1]["role"] == role:
        last = out[-1]["content"]
        results = [b for b in blocks if b["type"] == "tool_result"]
        if results and any(b["type"] != "tool_result" for b in last):
            # Tool results lead their user message: put them before text already there.
            cut = next(i for i, b in enumerate(last) if b["type"] != "tool_result")
            last[cut:cut] = results
            last.extend(b for b in blocks if b["type"] != "tool_result")
        else:
            last.extend(blocks)
    else:
        out.append({"role": role, "content": list(blocks)})


def thinking_allowed(messages: list[dict[str, Any]]) -> bool:
    """False when the request continues a tool loop whose last tool call came without thinking.

    With thinking on, the API refuses an assistant turn that called tools without its thinking
    block (say, one answered by another model or with thinking off): such a loop goes on
    without thinking until its next user turn.
    """
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return True
    if not any(b["type"] == "tool_result" for b in messages[-1]["content"]):
        return True
    turn = messages[-2]["content"]
    return bool(turn) and turn[0]["type"] in _THINKING


def add_cache_breakpoints(
    tools: list[dict[str, Any]], system: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> int:
    """Mark the cacheable prefix in place (see the module docstring); the breakpoints used."""
    marks: list[dict[str, Any]] = []
    if tools:
        marks.append(tools[-1])
    if system:
        marks.append(system[-1])
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    last = _cacheable(messages[-1]) if messages else None
    if last is not None:
        marks.append(last)
    if len(users) >= 2:
        before = users[-2] if users[-1] == len(messages) - 1 else users[-1]
        block = _cacheable(messages[before])
        if block is not None and block is not last:
            marks.append(block)
    for block in marks[:MAX_BREAKPOINTS]:
        block["cache_control"] = dict(_EPHEMERAL)
    return min(len(marks), MAX_BREAKPOINTS)


def _cacheable(message: dict[str, Any]) -> dict[str, Any] | None:
    """The last block of a message that may carry cache_control (thinking blocks may not)."""
    blocks: list[dict[str, Any]] = message["content"]
    return next((b for b in reversed(blocks) if b.get("type") not in _THINKING), None)
