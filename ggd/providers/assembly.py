"""Pure stream assembly: SSE lines -> data payloads, chat chunks -> events and one Completed."""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ggd.providers.types import (
    AnswerSoFar,
    Completed,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)

__all__ = ["SSEDecoder", "SSEStream", "StreamAssembler"]

DONE = "[DONE]"

# A streamed answer is one JSON chunk per delta: msgspec decodes them about 3x faster than json.
_decode = msgspec.json.Decoder().decode


class _ContentDelta(msgspec.Struct, forbid_unknown_fields=True):
    content: str


class _ContentChoice(msgspec.Struct):
    delta: _ContentDelta
    finish_reason: None = None


class _ContentChunk(msgspec.Struct):
    """The usual chunk: content-only deltas, no finish, usage or error (anything else fails)."""

    choices: list[_ContentChoice]
    error: None = None
    usage: None = None


# Typed decoding skips the fields nobody reads (id, model, created...) without building dicts,
# and what it accepts needs no further checks; whatever it refuses goes the general way.
_decode_content = msgspec.json.Decoder(_ContentChunk).decode
# A stream whose chunks keep failing the typed decoder stops trying it after this many in a row.
_FAST_MISSES = 4


class SSEDecoder:
    """Incremental Server-Sent Events decoder that yields each event's data payload."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> str | None:
        """Feed one line (without its newline); return a complete event's data, if any."""
        line = line.rstrip("\r")
        if line == "":
            if not self._data:
                return None
            data, self._data = "\n".join(self._data), []
            return data
        if line.startswith(":"):
            return None  # comment / keep-alive
        name, _, value = line.partition(":")
        if name == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)
        return None

    def flush(self) -> str | None:
        """Return a last event that was not followed by a blank line."""
        if not self._data:
            return None
        data, self._data = "\n".join(self._data), []
        return data


_NEWLINE = re.compile(r"\r\n|\r|\n")


class SSEStream:
    """Bytes of an event stream -> the data payloads of its complete events, chunk by chunk.

    The usual event is one `data: ...` line and a blank line, split here straight from the bytes
    (no per-line text decoding and no async step per line); anything else (comments, several
    fields, multi-line data) goes through SSEDecoder line by line, and once a CR shows up the
    whole rest of the stream does, so every SSE line ending keeps working.
    """

    def __init__(self) -> None:
        self._buf = b""
        self._lines = SSEDecoder()
        self._partial = ""
        self._slow = False
        self._text = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, chunk: bytes) -> list[str]:
        """Consume bytes; return the data of every event they completed."""
        if not self._slow and b"\r" in chunk:
            self._slow = True
            chunk, self._buf = self._buf + chunk, b""
        if self._slow:
            return self._feed_text(self._text.decode(chunk))
        blocks = (self._buf + chunk if self._buf else chunk).split(b"\n\n")
        self._buf = blocks.pop()  # the start of an event still to come
        out: list[str] = []
        for block in blocks:
            if block[:6] == b"data: " and b"\n" not in block:
                out.append(block[6:].decode("utf-8", "replace"))
            else:
                out += self._feed_text(block.decode("utf-8", "replace") + "\n\n")
        return out

    def flush(self) -> list[str]:
        """At the end of the stream: the data of a last event not followed by a blank line."""
        if self._slow:
            out = self._feed_text(self._text.decode(b"", final=True))
        else:
            out = self._feed_text(self._buf.decode("utf-8", "replace"))
            self._buf = b""
        if self._partial:
            line, self._partial = self._partial, ""
            data = self._lines.feed(line)
            if data is not None:
                out.append(data)
        tail = self._lines.flush()
        return [*out, tail] if tail is not None else out

    def _feed_text(self, text: str) -> list[str]:
        text = self._partial + text
        hold = ""
        if text.endswith("\r"):  # maybe the first half of a CRLF
            text, hold = text[:-1], "\r"
        lines = _NEWLINE.split(text)
        self._partial = lines.pop() + hold
        out: list[str] = []
        for line in lines:
            data = self._lines.feed(line)
            if data is not None:
                out.append(data)
        return out


def chat_usage(usage: dict[str, Any]) -> Usage:
    """A Chat Completions usage object, with the cache and reasoning counts servers report.

    OpenAI: prompt_tokens_details.cached_tokens, completion_tokens_details.reasoning_tokens;
    DeepSeek: prompt_cache_hit_tokens.
    """
    prompt = usage.get("prompt_tokens_details")
    completion = usage.get("completion_tokens_details")
    cached = prompt.get("cached_tokens") if isinstance(prompt, dict) else None
    reasoning = completion.get("reasoning_tokens") if isinstance(completion, dict) else None
    return Usage(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        total_tokens=int(usage.get("total_tokens") or 0),
        cache_read_tokens=int(cached or usage.get("prompt_cache_hit_tokens") or 0),
        reasoning_tokens=int(reasoning or 0),
    )


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    args: list[str] = field(default_factory=list)


@dataclass
class StreamAssembler(AnswerSoFar):
    """Accumulates chat.completion.chunk objects into deltas and one final Completed."""

    provider: str = "provider"
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    calls: dict[int, _PendingCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage | None = None
    done: bool = False
    _last_index: int = -1
    _misses: int = 0  # chunks in a row the content-only decoder refused
    # An error raised by a chunk after others of the same read had events: raised once those
    # events are out (the next feed_many, or finish), as one chunk at a time would have.
    _error: ProviderError | None = None

    def feed_many(self, datas: list[str]) -> list[StreamEvent]:
        """Feed SSE data payloads up to the end of the answer; return the events they produced."""
        if self._error is not None:
            raise self._error
        events: list[StreamEvent] = []
        text = self.text
        for data in datas:
            if self._misses < _FAST_MISSES and data[:1] == "{":
                try:
                    chunk = _decode_content(data)
                except ValueError:  # not content-only (or not valid): the general way below
                    self._misses += 1
                else:
                    self._misses = 0
                    for choice in chunk.choices:
                        piece = choice.delta.content
                        if piece:
                            text.append(piece)
                            events.append(TextDelta(piece))
                    continue
            try:
                events += self.feed_data(data)
            except ProviderError as exc:
                if not events:
                    raise
                self._error = exc
                break
            if self.done:
                break
        return events

    def feed_data(self, data: str) -> list[StreamEvent]:
        """Feed one SSE data payload; return the events it produced."""
        if data[:1] != "{" and data.strip() == DONE:  # a chunk (nearly all of them) is an object
            self.done = True
            return []
        try:
            chunk = _decode(data)
        except ValueError:
            try:  # what msgspec refuses and json takes (NaN, Infinity) stays accepted
                chunk = json.loads(data)
            except ValueError:
                raise self.error("the server sent malformed stream data", "bad_response") from None
        if not isinstance(chunk, dict):
            raise self.error("the server sent malformed stream data", "bad_response")
        return self.feed_chunk(chunk)

    def feed_chunk(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        """Feed one decoded chunk (streaming) or a whole chat.completion (non-streaming)."""
        if chunk.get("error"):
            err = chunk["error"]
            msg = err.get("message", "") if isinstance(err, dict) else str(err)
            raise self.error(
                f"the server reported an error mid-stream: {str(msg)[:200]}", "server_error", True
            )
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            events.extend(self._feed_delta(delta))
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = chat_usage(usage)
            events.append(self.usage)
        return events

    def _feed_delta(self, delta: dict[str, Any]) -> list[StreamEvent]:
        if len(delta) == 1:  # the usual text delta: {"content": "..."} alone
            piece = delta.get("content")
            if type(piece) is str:
                if not piece:
                    return []
                self.text.append(piece)
                return [TextDelta(piece)]
        events: list[StreamEvent] = []
        for key in ("reasoning_content", "reasoning"):
            piece = delta.get(key)
            if isinstance(piece, str) and piece:
                self.thinking.append(piece)
                events.append(ThinkingDelta(piece))
        piece = delta.get("content")
        if isinstance(piece, str) and piece:
            self.text.append(piece)
            events.append(TextDelta(piece))
        for frag in delta.get("tool_calls") or []:
            self._feed_call(frag)
        return events

    def _feed_call(self, frag: dict[str, Any]) -> None:
        index = frag.get("index")
        if not isinstance(index, int):
            # Some servers omit index: a new id starts a new call, otherwise continue the last.
            new = frag.get("id") and (
                self._last_index < 0 or self.calls[self._last_index].id != frag["id"]
            )
            index = self._last_index + 1 if new or self._last_index < 0 else self._last_index
        self._last_index = index
        call = self.calls.setdefault(index, _PendingCall())
        if frag.get("id"):
            call.id = str(frag["id"])
        fn = frag.get("function") or {}
        if fn.get("name"):
            call.name = str(fn["name"])
        args = fn.get("arguments")
        if isinstance(args, dict):
            call.args.append(json.dumps(args))
        elif isinstance(args, str):
            call.args.append(args)

    def finish(self) -> Completed:
        """Validate the assembled answer and return Completed, or raise ProviderError."""
        if self._error is not None:
            raise self._error
        if self.finish_reason is None and not self.done:
            raise self.error(
                "the response stream ended before it was complete", "stream_interrupted", True
            )
        if self.finish_reason == "length":
            raise self.error("the answer was cut off at the output token limit", "length")
        if self.finish_reason == "content_filter":
            raise self.error(
                "the answer was stopped by the provider's content filter", "bad_response"
            )
        calls = [self._validate(i, c) for i, c in sorted(self.calls.items())]
        return Completed(
            text=self.partial_text,
            tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn",
            usage=self.usage,
            thinking="".join(self.thinking),
        )

    def _validate(self, index: int, call: _PendingCall) -> ToolCall:
        if not call.id or not call.name:
            what = "an id" if not call.id else "a name"
            raise self.error(f"the model sent tool call #{index} without {what}", "bad_tool_call")
        raw = "".join(call.args).strip()
        try:
            args = json.loads(raw) if raw else {}
        except ValueError:
            raise self.error(
                f"the model sent invalid JSON arguments for tool '{call.name[:64]}'",
                "bad_tool_call",
            ) from None
        if not isinstance(args, dict):
            raise self.error(
                f"the model sent arguments for tool '{call.name[:64]}' that are not a JSON object",
                "bad_tool_call",
            )
        return ToolCall(id=call.id, name=call.name, arguments=args)
