"""Anthropic Messages stream events -> gg's events and one Completed (pure, no I/O).

The documented sequence: `message_start` (usage: input and cache tokens), then per content
block `content_block_start` / `content_block_delta`* / `content_block_stop` (text_delta,
thinking_delta and signature_delta, input_json_delta for tool_use), `message_delta` (stop_reason,
output usage), `message_stop`; `ping` at any point; `error` instead of the rest.

Failures keep the text streamed so far (errors.py codes): an `error` event is server_error,
a stream that stops before its stop_reason stream_interrupted, stop_reason max_tokens length,
tool input that is not a complete JSON object bad_tool_call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ggd.providers.native import decode_event, parse_arguments
from ggd.providers.types import (
    AnswerSoFar,
    Completed,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)

__all__ = ["MessageAssembler", "message_events"]

# Error event types that a new request may get past.
_RETRYABLE = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})


@dataclass
class _Block:
    type: str
    parts: list[str] = field(default_factory=list)  # text, thinking or tool input JSON
    signature: str = ""
    data: str = ""  # redacted_thinking
    id: str = ""
    name: str = ""


@dataclass
class MessageAssembler(AnswerSoFar):
    """Accumulates one streamed message: feed each event's data, then finish()."""

    provider: str = "anthropic"
    text: list[str] = field(default_factory=list)  # every text piece so far, in order
    blocks: dict[int, _Block] = field(default_factory=dict)
    stop_reason: str | None = None
    done: bool = False
    usage: dict[str, int] = field(default_factory=dict)

    def feed_data(self, data: str) -> list[StreamEvent]:
        """One SSE data payload (a JSON event) -> the events it produced."""
        return self.feed(decode_event(data, self.provider, self.text))

    def feed(self, event: dict[str, Any]) -> list[StreamEvent]:
        """One decoded event -> the events it produced."""
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            block = event.get("content_block") or {}
            b = _Block(str(block.get("type", "")), id=str(block.get("id") or ""))
            b.name, b.data = str(block.get("name") or ""), str(block.get("data") or "")
            self.blocks[_index(event)] = b
            first = block.get("text") or block.get("thinking")
            if isinstance(first, str) and first:  # a block may start with content already
                b.parts.append(first)
                if b.type == "text":
                    self.text.append(first)
                    return [TextDelta(first)]
                return [ThinkingDelta(first)]
            return []
        if kind == "message_start":
            self._usage((event.get("message") or {}).get("usage"))
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            if delta.get("stop_reason"):
                self.stop_reason = str(delta["stop_reason"])
            self._usage(event.get("usage"))
            return [self.final_usage()]
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            err = event.get("error") or {}
            etype = str(err.get("type") or "error") if isinstance(err, dict) else "error"
            msg = str(err.get("message") or etype) if isinstance(err, dict) else str(err)
            raise self.error(
                f"the server reported an error mid-stream ({etype}): {msg[:200]}",
                "server_error",
                etype in _RETRYABLE,
            )
        # ping, content_block_stop and event types added later carry nothing to keep.
        return []

    def _delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        block = self.blocks.get(_index(event))
        delta = event.get("delta") or {}
        if block is None:
            raise self.error("the server sent a delta for a block it never started", "bad_response")
        kind = delta.get("type")
        if kind == "text_delta":
            piece = str(delta.get("text") or "")
            block.parts.append(piece)
            self.text.append(piece)
            return [TextDelta(piece)] if piece else []
        if kind == "thinking_delta":
            piece = str(delta.get("thinking") or "")
            block.parts.append(piece)
            return [ThinkingDelta(piece)] if piece else []
        if kind == "input_json_delta":
            block.parts.append(str(delta.get("partial_json") or ""))
        elif kind == "signature_delta":
            block.signature += str(delta.get("signature") or "")
        return []  # citations and later delta types are not shown

    def _usage(self, raw: Any) -> None:
        """Counts of message_start, updated by message_delta's (cumulative where present)."""
        if not isinstance(raw, dict):
            return
        for key in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            value = raw.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                self.usage[key] = value
        details = raw.get("output_tokens_details")
        thinking = details.get("thinking_tokens") if isinstance(details, dict) else None
        if isinstance(thinking, int) and not isinstance(thinking, bool):
            self.usage["thinking_tokens"] = thinking

    def final_usage(self) -> Usage:
        """gg's Usage: prompt_tokens is every input token, cache reads and writes included;
        reasoning_tokens from output_tokens_details.thinking_tokens, where the API reports it."""
        u = self.usage
        read, wrote = u.get("cache_read_input_tokens", 0), u.get("cache_creation_input_tokens", 0)
        prompt = u.get("input_tokens", 0) + read + wrote
        out = u.get("output_tokens", 0)
        return Usage(
            prompt_tokens=prompt,
            completion_tokens=out,
            total_tokens=prompt + out,
            cache_read_tokens=read,
            cache_write_tokens=wrote,
            reasoning_tokens=u.get("thinking_tokens", 0),
        )

    def finish(self) -> Completed:
        """Validate the message and return Completed, or raise ProviderError."""
        if self.stop_reason is None:
            raise self.error(
                "the response stream ended before it was complete", "stream_interrupted", True
            )
        if self.stop_reason == "max_tokens":
            raise self.error("the answer was cut off at the output token limit", "length")
        if self.stop_reason == "model_context_window_exceeded":
            raise self.error("the conversation filled the model's context window", "length")
        if self.stop_reason == "refusal":
            raise self.error("the model declined to answer (stop_reason refusal)", "bad_response")
        ordered = [b for _, b in sorted(self.blocks.items())]
        calls = [self._call(b) for b in ordered if b.type == "tool_use"]
        thinking = [b for b in ordered if b.type in ("thinking", "redacted_thinking")]
        kept: list[dict[str, Any]] = []
        for b in thinking:
            if b.type == "redacted_thinking" and b.data:
                kept.append({"type": "redacted_thinking", "data": b.data})
            elif b.type == "thinking" and b.signature:  # unsigned thinking is refused back
                kept.append(
                    {"type": "thinking", "thinking": "".join(b.parts), "signature": b.signature}
                )
        return Completed(
            text=self.partial_text,
            tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn",
            usage=self.final_usage() if self.usage else None,
            thinking="".join("".join(b.parts) for b in thinking),
            replay={"kind": "anthropic", "thinking": kept} if kept else None,
        )

    def _call(self, block: _Block) -> ToolCall:
        if not block.id or not block.name:
            what = "an id" if not block.id else "a name"
            raise self.error(f"the model sent a tool call without {what}", "bad_tool_call")
        args = parse_arguments("".join(block.parts), block.name, self.provider, self.text)
        return ToolCall(id=block.id, name=block.name, arguments=args)


def _index(event: dict[str, Any]) -> int:
    index = event.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else 0


def message_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A whole (non-streamed) Message as the events that would have streamed it."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**message, "content": []}}
    ]
    for i, block in enumerate(message.get("content") or []):
        if not isinstance(block, dict):
            continue
        start = dict(block)
        if block.get("type") == "tool_use":
            start["input"] = {}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input"))}
            events += [
                {"type": "content_block_start", "index": i, "content_block": start},
                {"type": "content_block_delta", "index": i, "delta": delta},
            ]
        else:
            if block.get("type") == "thinking" and block.get("signature"):
                sig = {"type": "signature_delta", "signature": block["signature"]}
                start["signature"] = ""
                events += [
                    {"type": "content_block_start", "index": i, "content_block": start},
                    {"type": "content_block_delta", "index": i, "delta": sig},
                ]
            else:
                events.append({"type": "content_block_start", "index": i, "content_block": start})
        events.append({"type": "content_block_stop", "index": i})
    delta = {"stop_reason": message.get("stop_reason") or "end_turn"}
    events += [
        {"type": "message_delta", "delta": delta, "usage": message.get("usage") or {}},
        {"type": "message_stop"},
    ]
    return events
