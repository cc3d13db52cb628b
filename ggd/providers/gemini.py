"""The `gemini` kind: POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse (Gemini API).

The key goes in `x-goog-api-key`. Thought summaries (`includeThoughts`) stream as reasoning;
function calls arrive whole, and gg makes their call ids (Gemini answers results by name).
The model's parts come back as `Completed.replay` ({"kind": "gemini", "parts": [...]}) with
their `thoughtSignature`s, and are sent back verbatim the next time, as Gemini requires for
thinking models. The body puts the fixed fields first and `contents` last, so Gemini's implicit
prefix cache can serve every earlier turn (`usageMetadata.cachedContentTokenCount`).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from ggd.providers.gemini_convert import KIND, to_contents, to_tools
from ggd.providers.native import NativeProvider, decode_event
from ggd.providers.types import (
    AnswerSoFar,
    ChatRequest,
    Completed,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)

__all__ = ["KIND", "GeminiProvider"]

BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
# reasoningEffort -> thinkingBudget (tokens), the knob every thinking Gemini model takes.
_BUDGETS = {"none": 0, "minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
_CHOICE = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
_STOPS = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE"}


class GeminiProvider(NativeProvider):
    """A Gemini model over the Gemini API's streaming endpoint."""

    kind = KIND

    def fallback(self, model: str, status: int, text: str) -> bool:
        # A model that does not think refuses thinkingConfig: left out for it from then on.
        return status == 400 and "thinking" in text.lower() and self.refuse(model, "thinking")

    def status_error(self, status: int, text: str) -> ProviderError:
        # Gemini answers a wrong key with 400 INVALID_ARGUMENT (reason API_KEY_INVALID).
        if status == 400 and ("API_KEY_INVALID" in text or "API key not valid" in text):
            return ProviderError(
                f"{self.name}: authentication failed (HTTP 400: API key not valid); "
                "check GEMINI_API_KEY or the provider's apiKey",
                "auth",
                status=status,
            )
        return super().status_error(status, text)

    def auth_headers(self) -> dict[str, str]:
        return {"x-goog-api-key": str(self._api_key)}

    async def list_models(self) -> list[str] | None:
        """The models GET {baseUrl}/models lists that generate content, or None."""
        data = await self.get_json(f"{self.base_url}/models?pageSize=1000")
        rows = data.get("models") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            return None
        ids = [
            str(m["name"]).removeprefix("models/")
            for m in rows
            if isinstance(m, dict)
            and m.get("name")
            and "generateContent" in (m.get("supportedGenerationMethods") or ["generateContent"])
        ]
        return ids or None

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        """`generationConfig` (and `toolConfig`) as sent."""
        params = self.params_for(request.model)
        config: dict[str, Any] = {}
        if params.temperature is not None:
            config["temperature"] = params.temperature
        if params.top_p is not None:
            config["topP"] = params.top_p
        if params.seed is not None:
            config["seed"] = params.seed
        max_tokens = params.max_tokens if params.max_tokens is not None else request.max_tokens
        if max_tokens is not None:
            config["maxOutputTokens"] = max_tokens
        if self.sends(request.model, "thinking"):
            thinking: dict[str, Any] = {"includeThoughts": True}
            if request.reasoning_effort in _BUDGETS:
                thinking["thinkingBudget"] = _BUDGETS[request.reasoning_effort]
            config["thinkingConfig"] = thinking
        out: dict[str, Any] = {}
        choice = params.tool_choice
        if choice is not None and request.tools:
            if isinstance(choice, dict):
                name = (choice.get("function") or {}).get("name")
                mode: dict[str, Any] = {"mode": "ANY", "allowedFunctionNames": [name]}
            else:
                mode = {"mode": _CHOICE.get(choice, "AUTO")}
            out["toolConfig"] = {"functionCallingConfig": mode}
        out["generationConfig"] = config
        out.update(params.extra_body)
        return out

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The request body: instruction, tools and config first, the growing `contents` last."""
        system, contents = to_contents(request.messages)
        body: dict[str, Any] = {}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        tools = to_tools(request.tools)
        if tools:
            body["tools"] = tools
        body.update(self.request_params(request))
        body["contents"] = contents
        return body

    def url(self, model: str) -> str:
        """The streaming endpoint of `model`."""
        return (
            f"{self.base_url}/models/{model.removeprefix('models/')}:streamGenerateContent?alt=sse"
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; every failure is raised as ProviderError."""
        response = await self.open_stream(
            self.url(request.model), request.model, lambda: self.build_body(request)
        )
        asm = _Assembler(self.name)
        batches = self.sse_data(response, asm.text)
        try:
            async for datas in batches:
                for data in datas:
                    for ev in asm.feed(data):
                        yield ev
        finally:
            await batches.aclose()
        yield asm.finish()


@dataclass
class _Assembler(AnswerSoFar):
    """GenerateContentResponse chunks -> deltas and one Completed (or a ProviderError)."""

    provider: str
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None
    blocked: str = ""

    def feed(self, data: str) -> list[StreamEvent]:
        chunk = decode_event(data, self.provider, self.text)
        err = chunk.get("error")
        if err:
            msg = str(err.get("message", "") if isinstance(err, dict) else err)
            status = err.get("code") if isinstance(err, dict) else None
            code, again = ("rate_limited", True) if status == 429 else ("server_error", True)
            raise self.error(f"the server reported an error mid-stream: {msg[:200]}", code, again)
        events: list[StreamEvent] = []
        for cand in chunk.get("candidates") or []:
            if not isinstance(cand, dict) or int(cand.get("index", 0) or 0) != 0:
                continue
            for part in (cand.get("content") or {}).get("parts") or []:
                if isinstance(part, dict):
                    events += self._part(part)
            if cand.get("finishReason"):
                self.finish_reason = str(cand["finishReason"])
        feedback = chunk.get("promptFeedback") or {}
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            self.blocked = str(feedback["blockReason"])
        meta = chunk.get("usageMetadata")
        if isinstance(meta, dict) and self.finish_reason is not None:
            thoughts = int(meta.get("thoughtsTokenCount") or 0)
            prompt = int(meta.get("promptTokenCount") or 0) + int(
                meta.get("toolUsePromptTokenCount") or 0
            )
            completion = int(meta.get("candidatesTokenCount") or 0) + thoughts
            self.usage = Usage(
                prompt_tokens=prompt,
                completion_tokens=completion,
                total_tokens=int(meta.get("totalTokenCount") or prompt + completion),
                cache_read_tokens=int(meta.get("cachedContentTokenCount") or 0),
                reasoning_tokens=thoughts,
            )
            events.append(self.usage)
        return events

    def _part(self, part: dict[str, Any]) -> list[StreamEvent]:
        signature = part.get("thoughtSignature")
        call = part.get("functionCall")
        if isinstance(call, dict):
            args = call.get("args")
            if args is None:
                args = {}
            name = str(call.get("name") or "")
            if not name or not isinstance(args, dict):
                what = "without a name" if not name else "with arguments that are not an object"
                raise self.error(f"the model sent a function call {what}", "bad_tool_call")
            cid = str(call.get("id") or f"call_{uuid.uuid4().hex[:16]}")
            self.calls.append(ToolCall(id=cid, name=name, arguments=args))
            self.parts.append(part)
            return []
        text = part.get("text")
        if not isinstance(text, str):
            if signature:  # a signature alone belongs with what came before it
                self._sign(signature)
            return []
        if not text and not signature:
            return []  # the empty part of a closing chunk: nothing to show or send back
        thought = part.get("thought") is True
        last = self.parts[-1] if self.parts else None
        if (
            last is not None
            and "text" in last
            and (last.get("thought") is True) == thought
            and "thoughtSignature" not in last
        ):
            last["text"] += text
        else:
            self.parts.append({"text": text, **({"thought": True} if thought else {})})
        if signature:
            self.parts[-1]["thoughtSignature"] = signature
        if not text:
            return []
        (self.thinking if thought else self.text).append(text)
        return [ThinkingDelta(text) if thought else TextDelta(text)]

    def _sign(self, signature: Any) -> None:
        if self.parts and "thoughtSignature" not in self.parts[-1]:
            self.parts[-1]["thoughtSignature"] = signature
        else:
            self.parts.append({"text": "", "thoughtSignature": signature})

    def finish(self) -> Completed:
        if self.finish_reason is None:
            if self.blocked:
                raise self.error(f"the prompt was blocked ({self.blocked})", "bad_response")
            raise self.error(
                "the response stream ended before it was complete", "stream_interrupted", True
            )
        reason = self.finish_reason
        if reason == "MAX_TOKENS":
            raise self.error("the answer was cut off at the output token limit", "length")
        if reason in ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"):
            raise self.error(
                f"the model sent a malformed function call ({reason})", "bad_tool_call"
            )
        if reason in _STOPS or reason not in ("STOP", "FINISH_REASON_UNSPECIFIED"):
            raise self.error(f"the answer was stopped by the provider ({reason})", "bad_response")
        # A thought summary goes back only when it carries a signature.
        keep = [p for p in self.parts if p.get("thought") is not True or "thoughtSignature" in p]
        return Completed(
            text="".join(self.text),
            tool_calls=list(self.calls),
            stop_reason="tool_use" if self.calls else "end_turn",
            usage=self.usage,
            thinking="".join(self.thinking),
            replay={"kind": KIND, "parts": keep} if keep else None,
        )
