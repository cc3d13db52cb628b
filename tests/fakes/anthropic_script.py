"""One scripted step -> an Anthropic Messages reply, and the checks the real API makes first.

The step format is ggd/providers/scripted.py's (the same scripts drive every fake), read in the
Messages API's terms: `thinking` is a signed thinking block (with thinking on, every answer
starts with one, DEFAULT_THINKING when the step has none; with it off there is none), `toolCalls` are `tool_use` blocks
whose input arrives as `input_json_delta`s (at least two each), `finishReason` a stop_reason
("length" means max_tokens, "stop" end_turn, "tool_calls" tool_use; others are sent as they
are), `status` an error answer in the API's error shape (429 rate_limit_error, 529
overloaded_error, ...), and `errorBody` on a step without a status an `error` event after about
half of the stream. `usage: {prompt, completion}` sets the counts; otherwise input comes from the
emulated prompt cache (anthropic_cache.py) and output is estimated. `expect` reads tool results
as tool messages and text blocks as user messages.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from ggd.providers.scripted import Reply, check_expect, script_tool_calls, split_args, split_text

from .anthropic_cache import CacheUse

__all__ = [
    "DEFAULT_THINKING",
    "ERROR_TYPES",
    "api_error",
    "openai_view",
    "plan",
    "sign",
    "validate",
]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
DEFAULT_THINKING = "Thinking about the next step."
_STOPS = {"length": "max_tokens", "stop": "end_turn", "tool_calls": "tool_use"}
_SECRET = b"fake-anthropic-thinking"
_SSE = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}


def sign(thinking: str) -> str:
    """The signature of a thinking text (the real one is opaque; this one is checkable)."""
    return base64.b64encode(hmac.digest(_SECRET, thinking.encode(), hashlib.sha256)).decode()


def api_error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    """An HTTP error answer in the API's shape."""
    etype = ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    body = {"type": "error", "error": {"type": etype, "message": message}}
    hdrs = {"Content-Type": "application/json", "request-id": "req_fake", **(headers or {})}
    return Reply(status=status, headers=hdrs, body=json.dumps(body).encode())


def openai_view(body: dict[str, Any]) -> dict[str, Any]:
    """The request's messages as chat messages, for the scripts' `expect`."""
    out: list[dict[str, Any]] = []
    for msg in body.get("messages") or []:
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        for b in blocks:
            if b.get("type") == "tool_result":
                inner = b.get("content")
                if isinstance(inner, list):
                    inner = "".join(p.get("text", "") for p in inner if p.get("type") == "text")
                out.append({"role": "tool", "content": str(inner or "")})
        if texts:
            out.append({"role": msg.get("role"), "content": "".join(texts)})
    return {"messages": out}


def validate(body: dict[str, Any], *, adaptive_only: bool = False) -> str | None:
    """Why the real API would answer 400 to this body (the rules gg can break), else None.

    adaptive_only: the model takes thinking only as {"type": "adaptive"} (with an effort in
    output_config), as the newest models do.
    """
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    marks = sum(1 for _, bp in _breakpoints(body) if bp)
    if marks > 4:
        return f"A maximum of 4 blocks with cache_control may be provided. Found {marks}."
    thinking = body.get("thinking") or {}
    if adaptive_only and thinking.get("type") == "enabled":
        return "thinking.type: `enabled` is not supported for this model; use `adaptive`"
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None and effort not in ("low", "medium", "high", "xhigh", "max"):
        return "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
    if thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024 or budget >= body["max_tokens"]:
            return "thinking.budget_tokens: must be at least 1024 and less than max_tokens"
        if body.get("temperature") not in (None, 1):
            return "temperature may only be set to 1 when thinking is enabled"
    calls: set[str] = set()
    for i, msg in enumerate(messages):
        blocks = msg.get("content")
        blocks = [{"type": "text", "text": blocks}] if isinstance(blocks, str) else blocks
        if not blocks:
            return f"messages.{i}: all messages must have non-empty content"
        for j, b in enumerate(blocks):
            why = _block_problem(b, j, blocks, calls, msg.get("role"))
            if why:
                return f"messages.{i}.content.{j}: {why}"
        if msg.get("role") == "assistant":
            calls = {b["id"] for b in blocks if b.get("type") == "tool_use"}
            follows = messages[i + 1]["content"] if i + 1 < len(messages) else None
            answered = {b.get("tool_use_id") for b in follows or [] if isinstance(b, dict)}
            if calls - answered and i + 1 < len(messages):
                return (
                    f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {sorted(calls - answered)[0]}"
                )
            if thinking.get("type") == "enabled" and calls and i + 2 == len(messages):
                if blocks[0].get("type") not in ("thinking", "redacted_thinking"):
                    return (
                        f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`,"
                        " but found `tool_use`. When `thinking` is enabled, a final `assistant` "
                        "message must start with a thinking block"
                    )
    return None


def _breakpoints(body: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    out = [(t, "cache_control" in t) for t in body.get("tools") or []]
    system = body.get("system")
    out += [(b, "cache_control" in b) for b in (system if isinstance(system, list) else [])]
    for msg in body.get("messages") or []:
        content = msg.get("content")
        if isinstance(content, list):
            out += [(b, "cache_control" in b) for b in content if isinstance(b, dict)]
    return out


def _block_problem(b: Any, j: int, blocks: list[Any], calls: set[str], role: Any) -> str | None:
    if not isinstance(b, dict):
        return "Input should be an object"
    kind = b.get("type")
    if kind == "text" and not str(b.get("text") or "").strip():
        return "text content blocks must contain non-whitespace text"
    if kind == "tool_result":
        if role != "user":
            return "tool_result blocks are only allowed in user messages"
        if b.get("tool_use_id") not in calls:
            return f"unexpected `tool_use_id` found in `tool_result` blocks: {b.get('tool_use_id')}"
        if any(x.get("type") != "tool_result" for x in blocks[:j]):
            return "tool_result blocks must come FIRST in the content array"
    if kind == "thinking" and b.get("signature") != sign(str(b.get("thinking") or "")):
        return "Invalid `signature` in `thinking` block"
    if kind in ("thinking", "redacted_thinking") and "cache_control" in b:
        return "cache_control cannot be set on thinking blocks"
    return None


def _frame(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def _blocks(step: dict[str, Any], seq: int, think: bool) -> list[dict[str, Any]]:
    """The answer's content blocks, complete.

    With thinking on, every answer starts with a thinking block, as the model's do (the step's
    text, else a stand-in); with it off, none does.
    """
    out: list[dict[str, Any]] = []
    if think:
        text = str(step.get("thinking") or DEFAULT_THINKING)
        out.append({"type": "thinking", "thinking": text, "signature": sign(text)})
    if step.get("text"):
        out.append({"type": "text", "text": str(step["text"])})
    for i, (given, call) in enumerate(
        zip(step.get("toolCalls") or [], script_tool_calls(step, seq), strict=True)
    ):
        call_id = call["id"] if "id" in given else f"toolu_fake_{seq}_{i}"
        out.append(
            {"type": "tool_use", "id": call_id, "name": call["name"], "raw": call["arguments"]}
        )
    return out


def plan(step: dict[str, Any], body: dict[str, Any], *, seq: int, cache: CacheUse) -> Reply:
    """The reply to a Messages request for one script step (the body already validated)."""
    mismatch = check_expect(step.get("expect"), openai_view(body))
    if mismatch is not None:
        reply = api_error(500, mismatch)
        reply.mismatch = mismatch
        return reply
    status = int(step.get("status", 200))
    if status != 200:
        message = _error_message(step.get("errorBody")) or f"scripted HTTP {status}"
        return api_error(status, message, dict(step.get("headers") or {}))
    think = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
    blocks = _blocks(step, seq, think)
    stop = str(step.get("finishReason") or ("tool_calls" if step.get("toolCalls") else "stop"))
    usage = _usage(step, cache, blocks)
    model = str(body.get("model") or "claude-fake")
    if not body.get("stream"):
        content = [_whole(b) for b in blocks]
        message = _message(seq, model, content, _STOPS.get(stop, stop), usage)
        return Reply(
            headers={"Content-Type": "application/json"}, body=json.dumps(message).encode()
        )
    start_usage = {**usage, "output_tokens": 1}
    frames = [
        _frame({"type": "message_start", "message": _message(seq, model, [], None, start_usage)}),
        _frame({"type": "ping"}),
    ]
    size = step.get("chunkSize")
    for index, block in enumerate(blocks):
        frames += _block_frames(index, block, size)
    end = [
        _frame(
            {
                "type": "message_delta",
                "delta": {"stop_reason": _STOPS.get(stop, stop), "stop_sequence": None},
                "usage": _delta_usage(usage, blocks),
            }
        ),
        _frame({"type": "message_stop"}),
    ]
    headers = {**_SSE, "request-id": f"req_fake_{seq}", **(step.get("headers") or {})}
    delay = float(step.get("delayMs", 0)) / 1000.0
    half = 2 + max(1, (len(frames) - 2) // 2)
    if step.get("errorBody"):
        err = {
            "type": "error",
            "error": {"type": "overloaded_error", "message": _error_message(step["errorBody"])},
        }
        return Reply(headers=headers, frames=[*frames[:half], _frame(err)], delay_s=delay)
    if step.get("hang"):
        return Reply(headers=headers, frames=frames, delay_s=delay, hang=True)
    torn = step.get("torn")
    if torn:
        keep = torn if isinstance(torn, int) and torn is not True else half
        return Reply(headers=headers, frames=frames[:keep], delay_s=delay, torn_after=keep)
    return Reply(
        headers=headers, frames=frames + end, delay_s=delay, paced=step.get("paced") is True
    )


def _error_message(body: Any) -> str:
    """The message of a step's errorBody: a string, or an object with error.message."""
    if isinstance(body, dict):
        err = body.get("error")
        return str(err.get("message", "")) if isinstance(err, dict) else json.dumps(body)
    return "" if body is None else str(body)


def _whole(block: dict[str, Any]) -> dict[str, Any]:
    """A block as a non-streamed message carries it (tool input parsed)."""
    if block["type"] != "tool_use":
        return block
    out = {k: v for k, v in block.items() if k != "raw"}
    out["input"] = json.loads(block["raw"] or "{}")
    return out


def _block_frames(index: int, block: dict[str, Any], size: int | None) -> list[bytes]:
    kind = block["type"]
    if kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": p} for p in split_text(block["thinking"], size)
        ]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in split_text(block["text"], size)]
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        parts = ["", *split_args(block["raw"], size)]  # the API opens with an empty delta
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in parts]
    frames = [_frame({"type": "content_block_start", "index": index, "content_block": start})]
    frames += [_frame({"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    frames.append(_frame({"type": "content_block_stop", "index": index}))
    return frames


def _usage(step: dict[str, Any], cache: CacheUse, blocks: list[dict[str, Any]]) -> dict[str, int]:
    given = step.get("usage")
    if isinstance(given, dict):
        return {
            "input_tokens": int(given.get("prompt", 0)),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": int(given.get("completion", 0)),
        }
    out = sum(len(json.dumps(b)) for b in blocks) // 4
    return {
        "input_tokens": cache.input_tokens,
        "cache_creation_input_tokens": cache.cache_creation_input_tokens,
        "cache_read_input_tokens": cache.cache_read_input_tokens,
        "output_tokens": max(1, out),
    }


def _delta_usage(usage: dict[str, int], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """message_delta's usage: the output so far and, with thinking, the part spent on it."""
    out: dict[str, Any] = {"output_tokens": usage["output_tokens"]}
    thought = sum(len(b["thinking"]) for b in blocks if b["type"] == "thinking")
    if thought:
        out["output_tokens_details"] = {
            "thinking_tokens": min(usage["output_tokens"], max(1, thought // 4))
        }
    return out


def _message(
    seq: int, model: str, content: list[Any], stop: str | None, usage: dict[str, int]
) -> dict[str, Any]:
    return {
        "id": f"msg_fake_{seq}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
