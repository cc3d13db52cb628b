"""The `openai-responses` kind: POST {baseUrl}/responses with stream=true (OpenAI's Responses API).

Nothing lives at the provider: every request has `store: false` and asks for
`reasoning.encrypted_content`, and the reasoning items of an answer travel back with it as
`Completed.replay` ({"kind": "openai-responses", "items": [...]}), which the loop stores on
the assistant message and hands back as `gg_replay`, so a reasoning model keeps its reasoning
across the tool calls of a run. `prompt_cache_key` is the session id, and the body is laid out
so each request starts with the bytes of the one before it (fixed fields first, `input` last,
compact JSON in a fixed order): OpenAI's automatic prefix cache then reads the whole history.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from ggd.providers.native import NativeProvider, decode_event, parse_arguments
from ggd.providers.types import (
    AnswerSoFar,
    ChatRequest,
    Completed,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)

__all__ = ["KIND", "ResponsesProvider", "to_input"]

KIND = "openai-responses"


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _parts(content: Any) -> list[dict[str, Any]]:
    """OpenAI chat content (a string or parts) as Responses input content parts."""
    if not isinstance(content, list):
        return [{"type": "input_text", "text": "" if content is None else str(content)}]
    out: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            detail = image.get("detail", "auto") if isinstance(image, dict) else "auto"
            out.append({"type": "input_image", "image_url": str(url), "detail": detail})
        elif part.get("type") == "text":
            out.append({"type": "input_text", "text": str(part.get("text", ""))})
    return out


def to_input(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Chat messages -> (instructions, Responses input items).

    Leading system messages become `instructions`; an assistant message's own reasoning items (its
    `gg_replay` of this kind) go back before its text and function calls, as the API wants.
    """
    system: list[str] = []
    items: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role in ("system", "developer") and not items:
            system.append(_text_of(m.get("content")))
        elif role in ("system", "developer"):
            # Later ones stay in place: moved into instructions they would change the prefix.
            items.append({"role": role, "content": _text_of(m.get("content"))})
        elif role == "assistant":
            replay = m.get("gg_replay")
            if isinstance(replay, dict) and replay.get("kind") == KIND:
                items.extend(i for i in replay.get("items") or [] if isinstance(i, dict))
            text = _text_of(m.get("content"))
            if text:
                # The documented short form: an output message item would need its id and status.
                items.append({"role": "assistant", "content": text})
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                items.append(
                    {
                        "type": "function_call",
                        "call_id": str(call.get("id", "")),
                        "name": str(fn.get("name", "")),
                        "arguments": str(fn.get("arguments") or "{}"),
                    }
                )
        elif role == "tool":
            raw = m.get("content")
            output: Any = _parts(raw) if isinstance(raw, list) else _text_of(raw)
            call_id = str(m.get("tool_call_id", ""))
            items.append({"type": "function_call_output", "call_id": call_id, "output": output})
        else:
            items.append({"role": "user", "content": _parts(m.get("content"))})
    return "\n\n".join(s for s in system if s), items


def _tools(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for spec in specs:
        fn = spec.get("function") if spec.get("type") == "function" else spec
        if not isinstance(fn, dict):
            continue
        tool: dict[str, Any] = {"type": "function", "name": fn.get("name", "")}
        if fn.get("description"):
            tool["description"] = fn["description"]
        tool["parameters"] = fn.get("parameters") or {"type": "object", "properties": {}}
        # The API's default is strict schemas, which gg's optional arguments do not meet.
        tool["strict"] = False
        out.append(tool)
    return out


class ResponsesProvider(NativeProvider):
    """A model behind OpenAI's Responses API (or a gateway speaking it)."""

    kind = KIND

    def fallback(self, model: str, status: int, text: str) -> bool:
        # A model that does not reason refuses these; only a "not supported" answer drops one
        # (a reasoning item that fails verification is a real error).
        low = text.lower()
        if status != 400 or "supported" not in low:
            return False
        if ("encrypted" in low or "include" in low) and self.refuse(model, "include"):
            return True
        return "reasoning" in low and self.refuse(model, "reasoning")

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"}

    async def list_models(self) -> list[str] | None:
        """The model ids GET {baseUrl}/models lists, or None when it lists none."""
        data = await self.get_json(f"{self.base_url}/models")
        rows = data.get("data") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            return None
        ids = [str(m["id"]) for m in rows if isinstance(m, dict) and m.get("id")]
        return ids or None

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        params = self.params_for(request.model)
        out: dict[str, Any] = {}
        if params.temperature is not None:
            out["temperature"] = params.temperature
        if params.top_p is not None:
            out["top_p"] = params.top_p
        if params.tool_choice is not None and request.tools:
            choice = params.tool_choice
            if isinstance(choice, dict):  # Chat Completions' {"function": {"name"}} shape
                choice = {"type": "function", "name": (choice.get("function") or {}).get("name")}
            out["tool_choice"] = choice
        max_tokens = params.max_tokens if params.max_tokens is not None else request.max_tokens
        if max_tokens is not None:
            out["max_output_tokens"] = max_tokens
        if self.sends(request.model, "reasoning"):
            # Summaries are what a reasoning model shows of its reasoning; effort when set.
            reasoning = {"effort": request.reasoning_effort} if request.reasoning_effort else {}
            out["reasoning"] = {**reasoning, "summary": "auto"}
        out.update(params.extra_body)
        return out

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The request body: fields that never change first, the growing `input` last."""
        instructions, items = to_input(request.messages)
        body: dict[str, Any] = {"model": request.model}
        if instructions:
            body["instructions"] = instructions
        if request.tools:
            body["tools"] = _tools(request.tools)
        body.update(self.request_params(request))
        body["store"] = False
        if self.sends(request.model, "include"):
            body["include"] = ["reasoning.encrypted_content"]
        body["stream"] = True
        if request.session_id:
            body["prompt_cache_key"] = request.session_id[:64]
        body["input"] = items
        return body

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; every failure is raised as ProviderError."""
        response = await self.open_stream(
            f"{self.base_url}/responses", request.model, lambda: self.build_body(request)
        )
        asm = _Assembler(self.name)
        batches = self.sse_data(response, asm.text)
        try:
            async for datas in batches:
                for data in datas:
                    for ev in asm.feed(data):
                        yield ev
                    if asm.status is not None:
                        break
                if asm.status is not None:
                    break
        finally:
            await batches.aclose()
        yield asm.finish()


@dataclass
class _Call:
    call_id: str = ""
    name: str = ""
    args: list[str] = field(default_factory=list)
    done: str | None = None


@dataclass
class _Assembler(AnswerSoFar):
    """`response.*` events -> deltas and one Completed (or a ProviderError)."""

    provider: str
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    calls: dict[int, _Call] = field(default_factory=dict)
    reasoning: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage | None = None
    status: str | None = None  # completed / incomplete / failed: the stream's end
    reason: str = ""

    def feed(self, data: str) -> list[StreamEvent]:
        ev = decode_event(data, self.provider, self.text)
        kind = str(ev.get("type", ""))
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            piece = str(ev.get("delta") or "")
            if piece:
                self.text.append(piece)
                return [TextDelta(piece)]
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            piece = str(ev.get("delta") or "")
            if piece:
                self.thinking.append(piece)
                return [ThinkingDelta(piece)]
        elif kind == "response.reasoning_summary_part.added" and self.thinking:
            self.thinking.append("\n\n")
            return [ThinkingDelta("\n\n")]
        elif kind == "response.output_item.added":
            item = ev.get("item") or {}
            if item.get("type") == "function_call":
                self.calls[int(ev.get("output_index", len(self.calls)))] = _Call(
                    str(item.get("call_id") or ""), str(item.get("name") or "")
                )
        elif kind == "response.function_call_arguments.delta":
            self._call(ev).args.append(str(ev.get("delta") or ""))
        elif kind == "response.function_call_arguments.done":
            self._call(ev).done = str(ev.get("arguments") or "")
        elif kind == "response.output_item.done":
            self._item_done(ev)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            return self._end(kind.split(".", 1)[1], ev.get("response") or {})
        elif kind == "error":
            msg = str(ev.get("message") or (ev.get("error") or {}).get("message") or "")
            raise self.error(
                f"the server reported an error mid-stream: {msg[:200]}", "server_error", True
            )
        return []

    def _call(self, ev: dict[str, Any]) -> _Call:
        return self.calls.setdefault(int(ev.get("output_index", -1)), _Call())

    def _item_done(self, ev: dict[str, Any]) -> None:
        item = ev.get("item") or {}
        if item.get("type") == "reasoning":
            # Sent back as it came (summary and encrypted content): no state at the provider.
            keep = {k: item[k] for k in ("type", "id", "summary", "encrypted_content") if k in item}
            keep.setdefault("summary", [])
            self.reasoning.append(keep)
        elif item.get("type") == "function_call":
            call = self._call(ev)
            call.call_id = str(item.get("call_id") or call.call_id)
            call.name = str(item.get("name") or call.name)
            if isinstance(item.get("arguments"), str):
                call.done = item["arguments"]

    def _end(self, status: str, response: dict[str, Any]) -> list[StreamEvent]:
        self.status = status
        usage = response.get("usage")
        out: list[StreamEvent] = []
        if isinstance(usage, dict):
            inp = usage.get("input_tokens_details") or {}
            outd = usage.get("output_tokens_details") or {}
            prompt = int(usage.get("input_tokens") or 0)
            completion = int(usage.get("output_tokens") or 0)
            self.usage = Usage(
                prompt_tokens=prompt,
                completion_tokens=completion,
                total_tokens=int(usage.get("total_tokens") or prompt + completion),
                cache_read_tokens=int(inp.get("cached_tokens") or 0),
                reasoning_tokens=int(outd.get("reasoning_tokens") or 0),
            )
            out.append(self.usage)
        if status == "incomplete":
            self.reason = str((response.get("incomplete_details") or {}).get("reason") or "")
        elif status == "failed":
            err = response.get("error") or {}
            self.reason = f"{err.get('code') or ''}: {str(err.get('message') or '')[:200]}"
        return out

    def finish(self) -> Completed:
        if self.status is None:
            raise self.error(
                "the response stream ended before it was complete", "stream_interrupted", True
            )
        if self.status == "incomplete":
            if self.reason == "max_output_tokens":
                raise self.error("the answer was cut off at the output token limit", "length")
            raise self.error(
                f"the answer is incomplete ({self.reason or 'no reason'})", "bad_response"
            )
        if self.status == "failed":
            code = self.reason.split(":", 1)[0]
            if code == "rate_limit_exceeded":
                raise self.error(f"rate limited mid-stream ({self.reason})", "rate_limited", True)
            raise self.error(f"the response failed ({self.reason})", "server_error", True)
        calls = [self._validate(i, c) for i, c in sorted(self.calls.items())]
        return Completed(
            text="".join(self.text),
            tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn",
            usage=self.usage,
            thinking="".join(self.thinking),
            replay={"kind": KIND, "items": self.reasoning} if self.reasoning else None,
        )

    def _validate(self, index: int, call: _Call) -> ToolCall:
        if not call.call_id or not call.name:
            what = "an id" if not call.call_id else "a name"
            raise self.error(f"the model sent tool call #{index} without {what}", "bad_tool_call")
        raw = call.done if call.done is not None else "".join(call.args)
        args = parse_arguments(raw, call.name, self.provider, self.text)
        return ToolCall(id=call.call_id, name=call.name, arguments=args)
