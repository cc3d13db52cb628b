"""A scripted Gemini API server on 127.0.0.1: POST /v1beta/models/M:streamGenerateContent?alt=sse.

    with FakeGemini([{"thinking": "plan", "toolCalls": [{"name": "read", ...}]}]) as fg:
        provider = GeminiProvider(fg.base_url, "k", name="fake")

The steps are fake_openai's (ggd/providers/scripted.py). Each answer is a run of SSE chunks of
GenerateContentResponse JSON (CRLF-separated, as Google sends them): thought parts
(`thought: true`, split into `chunkSize` pieces), text parts, one chunk per function call
(Gemini sends calls whole), then a chunk with finishReason (STOP, or MAX_TOKENS for
finishReason "length", or the step's own value) and usageMetadata (promptTokenCount,
cachedContentTokenCount from the emulated implicit prefix cache in tests/fakes/prefix_cache.py,
candidatesTokenCount, thoughtsTokenCount). A step with `thinking` or function calls puts a
thoughtSignature on its first function call (or its last text part); a later request whose model turn has a
function call without the signature this fake issued is refused with HTTP 400, as Gemini 3
refuses it. The key must come in `x-goog-api-key`.

`python -m tests.fakes.fake_gemini --script FILE` serves like fake_openai's command line.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

from ggd.providers.gemini_convert import SKIP_SIGNATURE
from ggd.providers.scripted import Reply, check_expect, script_tool_calls, split_text
from tests.fakes.fake_openai import FakeModel, _json, main
from tests.fakes.prefix_cache import cached_tokens, tokens

__all__ = ["FakeGemini", "as_chat"]

_FINISH = {"length": "MAX_TOKENS", "stop": "STOP", "tool_calls": "STOP"}


def _error(status: int, message: str) -> Reply:
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED"}
    err = {"code": status, "message": message, "status": names.get(status, "INTERNAL")}
    return _json(status, {"error": err})


def as_chat(body: dict[str, Any]) -> dict[str, Any]:
    """A Gemini body's contents as chat messages (for the steps' `expect`)."""
    messages = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if "functionResponse" in part:
                result = (part["functionResponse"].get("response") or {}).get("result", "")
                messages.append({"role": "tool", "content": str(result)})
            elif "text" in part and content.get("role") == "user":
                messages.append({"role": "user", "content": part["text"]})
    return {"messages": messages}


class FakeGemini(FakeModel):
    """FakeModel speaking the Gemini API's streaming chunks."""

    api_root = "/v1beta"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.issued: set[str] = {SKIP_SIGNATURE}

    def accepts(self, path: str) -> bool:
        return path.startswith("/v1beta/models/") and path.endswith(":streamGenerateContent")

    def model_listing(self) -> dict[str, Any]:
        methods = ["generateContent", "streamGenerateContent", "countTokens"]
        return {
            "models": [
                {"name": f"models/{m}", "supportedGenerationMethods": methods} for m in self.models
            ]
        }

    def plan(self, step: dict[str, Any], body: dict[str, Any], seq: int, path: str) -> Reply:
        with self._cond:
            headers = self.request_headers[seq]
            raw, earlier = self.raw_requests[seq], self.raw_requests[:seq]
        if not headers.get("x-goog-api-key"):
            return _error(401, "API key not valid. Please pass a valid API key.")
        if "alt=sse" not in path.partition("?")[2]:
            return _error(400, "this fake streams only with alt=sse")
        for content in body.get("contents") or []:
            calls = [p for p in content.get("parts") or [] if "functionCall" in p]
            if content.get("role") == "model" and calls:
                if calls[0].get("thoughtSignature") not in self.issued:
                    return _error(400, "Function call is missing a thought_signature.")
        mismatch = check_expect(step.get("expect"), as_chat(body))
        if mismatch is not None:
            reply = _error(500, mismatch)
            reply.mismatch = mismatch
            return reply
        status = int(step.get("status", 200))
        if status != 200:
            reply = _error(status, f"scripted HTTP {status}")
            if step.get("errorBody"):
                reply.body = json.dumps(step["errorBody"]).encode()
            reply.headers.update(step.get("headers") or {})
            return reply
        model = path.partition("/models/")[2].partition(":")[0]
        return self._stream(step, model, seq, raw, earlier)

    def _stream(
        self, step: dict[str, Any], model: str, seq: int, raw: bytes, earlier: list[bytes]
    ) -> Reply:
        frames: list[bytes] = []

        def chunk(parts: list[dict[str, Any]], **cand: Any) -> dict[str, Any]:
            content = {"parts": parts, "role": "model"}
            out = {
                "candidates": [{"content": content, "index": 0, **cand}],
                "modelVersion": model,
                "responseId": f"fake-{seq}",
            }
            return out

        def send(obj: dict[str, Any]) -> None:
            frames.append(b"data: " + json.dumps(obj).encode() + b"\r\n\r\n")

        size = step.get("chunkSize")
        thinking = str(step.get("thinking") or "")
        for piece in split_text(thinking, size):
            send(chunk([{"text": piece, "thought": True}]))
        calls = script_tool_calls(step, seq)
        signature = ""
        # Gemini 3 signs the first function call of every answer, thinking shown or not, and
        # refuses a history without it (below): the fake must not refuse what it never issued.
        if thinking or calls:
            signature = base64.b64encode(f"sig-{seq}:{len(thinking)}".encode()).decode()
            with self._cond:
                self.issued.add(signature)
        text = str(step.get("text") or "")
        pieces = split_text(text, size)
        for i, piece in enumerate(pieces):
            part: dict[str, Any] = {"text": piece}
            if signature and not calls and i == len(pieces) - 1:
                part["thoughtSignature"] = signature
            send(chunk([part]))
        for i, call in enumerate(calls):
            fc: dict[str, Any] = {"functionCall": {"name": call["name"]}}
            try:
                fc["functionCall"]["args"] = json.loads(call["arguments"])
            except ValueError:  # rawArguments that are not JSON: Gemini's malformed call
                step = {**step, "finishReason": "MALFORMED_FUNCTION_CALL"}
                break
            if signature and i == 0:
                fc["thoughtSignature"] = signature
            send(chunk([fc]))
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        headers.update(step.get("headers") or {})
        delay = float(step.get("delayMs", 0)) / 1000.0
        if step.get("hang"):
            return Reply(headers=headers, frames=frames, delay_s=delay, hang=True)
        torn = step.get("torn")
        if torn:
            keep = torn if isinstance(torn, int) and torn is not True else max(1, len(frames) // 2)
            keep = min(keep, len(frames))
            return Reply(headers=headers, frames=frames[:keep], delay_s=delay, torn_after=keep)
        finish = str(step.get("finishReason") or "stop")
        usage = _usage(step, raw, earlier, text, thinking)
        send(
            {
                **chunk([{"text": ""}], finishReason=_FINISH.get(finish, finish)),
                "usageMetadata": usage,
            }
        )
        return Reply(headers=headers, frames=frames, delay_s=delay, paced=step.get("paced") is True)


def _usage(
    step: dict[str, Any], raw: bytes, earlier: list[bytes], text: str, thinking: str
) -> dict[str, Any]:
    given = step.get("usage")
    if isinstance(given, dict):
        prompt, completion = int(given.get("prompt", 0)), int(given.get("completion", 0))
        cached, thoughts = int(given.get("cached", 0)), int(given.get("reasoning", 0))
    else:
        prompt, cached = tokens(raw), cached_tokens(raw, earlier)
        thoughts = len(thinking) // 4
        args = sum(len(c["arguments"]) for c in script_tool_calls(step, 0))
        completion = max(1, (len(text) + args) // 4)
    out = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": completion,
        "totalTokenCount": prompt + completion + thoughts,
    }
    if cached:
        out["cachedContentTokenCount"] = cached
    if thoughts:
        out["thoughtsTokenCount"] = thoughts
    return out


if __name__ == "__main__":
    sys.exit(main(fake_class=FakeGemini))
