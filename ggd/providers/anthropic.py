"""Streaming client for Anthropic's Messages API (kind "anthropic").

    provider = AnthropicProvider("https://api.anthropic.com/v1", key, name="anthropic")
    async for ev in provider.stream(ChatRequest(model="claude-sonnet-4-5", messages=[...])): ...

POSTs {base_url}/messages with `stream: true` (the base URL ends in /v1; one without it gets it).
The request arrives in OpenAI chat format and is converted (anthropic_convert.py), with prompt
cache breakpoints on tools, system and the conversation; events are read by anthropic_events.py.
Retries and error codes are every native kind's (native.py, errors.py): 429, 5xx and 529 "overloaded"
are retried before the stream is accepted, after `retry-after` when given; so is an `error`
event (overloaded) that comes before any of the answer did.

Extended thinking follows `reasoning_effort`: "low", "medium", "high" (a budget of 2048, 8192 or
32000 tokens, on top of the answer's own max_tokens; "minimal" 1024, "xhigh" 48000, "max" 60000),
a number of tokens (1024 or more), or "none"; unset, the model does not think. With thinking on, temperature and top_p are not sent
(the API takes only their defaults then). A model that refuses a manual budget (HTTP 400 about
thinking) is asked again, and from then on, with adaptive thinking at the same effort level.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import httpx

from ggd.providers.anthropic_convert import (
    add_cache_breakpoints,
    convert_messages,
    convert_tools,
    thinking_allowed,
)
from ggd.providers.anthropic_events import MessageAssembler, message_events
from ggd.providers.errors import from_httpx
from ggd.providers.native import NativeProvider
from ggd.providers.openai_compat import ProviderOptions
from ggd.providers.types import ChatRequest, ProviderError, StreamEvent

__all__ = ["API_VERSION", "BASE_URL", "DEFAULT_MAX_TOKENS", "AnthropicProvider", "thinking_budget"]

API_VERSION = "2023-06-01"
BASE_URL = "https://api.anthropic.com/v1"
# Output tokens of an answer when neither config nor the loop sets them: every current model
# takes this many (the API requires max_tokens).
DEFAULT_MAX_TOKENS = 8192
_EFFORT_BUDGETS = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 32000,
    "xhigh": 48000,
    "max": 60000,
}
# The effort levels of adaptive thinking (output_config.effort).
_LEVELS = ("low", "medium", "high", "xhigh", "max")
_OFF = ("none", "off", "0", "")
_OFFICIAL_HOST = "api.anthropic.com"
# The optional field a model may refuse: a manual thinking budget (NativeProvider.refuse).
_BUDGET = "thinking.budget_tokens"


def thinking_budget(effort: str | None) -> int | None:
    """The thinking budget (tokens) of a reasoning effort; None: no thinking.

    Raises:
        ValueError: an effort that is no level nor a number of at least 1024 tokens.
    """
    if effort is None or effort.strip().lower() in _OFF:
        return None
    value = effort.strip().lower()
    if value in _EFFORT_BUDGETS:
        return _EFFORT_BUDGETS[value]
    if value.isdigit() and int(value) >= 1024:
        return int(value)
    raise ValueError(
        f"reasoning effort {effort!r} is not one of {', '.join(_EFFORT_BUDGETS)}, none, "
        "or a thinking budget of at least 1024 tokens"
    )


def _effort_level(budget: int) -> str:
    """The effort level of a thinking budget, for models that think adaptively."""
    return "low" if budget < 4096 else "medium" if budget < 16384 else "high"


def _tool_choice(choice: str | dict[str, Any]) -> dict[str, Any]:
    """The Chat Completions tool_choice config value in Anthropic's terms."""
    if isinstance(choice, dict):
        return {"type": "tool", "name": str(choice["function"]["name"])}
    return {"type": {"required": "any"}.get(choice, choice)}


class AnthropicProvider(NativeProvider):
    """A Messages API endpoint: streams TextDelta, ThinkingDelta, Usage, then Completed."""

    kind = "anthropic"

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        name: str = "anthropic",
        options: ProviderOptions | None = None,
    ) -> None:
        base = base_url.rstrip("/")
        opts = options or ProviderOptions()
        # Every request names the API version, with a key or without (a gateway's own auth).
        opts = replace(opts, headers={**opts.headers, "anthropic-version": API_VERSION})
        super().__init__(base if base.endswith("/v1") else f"{base}/v1", api_key, name, opts)

    def auth_headers(self) -> dict[str, str]:
        """Anthropic's own key header."""
        return {"x-api-key": str(self._api_key)}

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        """max_tokens, thinking and the sampling fields the body of `request` carries."""
        return self._params(request, thinking_allowed(convert_messages(request.messages)[1]))

    def _params(self, request: ChatRequest, may_think: bool) -> dict[str, Any]:
        params = self.params_for(request.model)
        answer = params.max_tokens or request.max_tokens or DEFAULT_MAX_TOKENS
        try:
            budget = thinking_budget(request.reasoning_effort) if may_think else None
        except ValueError as exc:
            raise ProviderError(f"{self.name}: {exc}", "bad_request") from None
        out: dict[str, Any] = {"max_tokens": answer + (budget or 0)}
        if budget is not None and not self.sends(request.model, _BUDGET):
            out["thinking"] = {"type": "adaptive"}
            named = (request.reasoning_effort or "").strip().lower()
            out["output_config"] = {"effort": named if named in _LEVELS else _effort_level(budget)}
        elif budget is not None:
            out["thinking"] = {"type": "enabled", "budget_tokens": budget}
        else:
            if params.temperature is not None:
                out["temperature"] = params.temperature
            if params.top_p is not None:
                out["top_p"] = params.top_p
        if params.tool_choice is not None and request.tools:
            out["tool_choice"] = _tool_choice(params.tool_choice)
        out.update(params.extra_body)
        thinking = out.get("thinking")
        if not may_think and isinstance(thinking, dict) and thinking.get("type") == "enabled":
            del out["thinking"]  # set in extraBody: this loop began without it (see above)
        return out

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of `request`: converted messages, cache breakpoints, parameters."""
        system, messages = convert_messages(request.messages)
        tools = convert_tools(request.tools)
        add_cache_breakpoints(tools, system, messages)
        body: dict[str, Any] = {"model": request.model}
        body.update(self._params(request, thinking_allowed(messages)))
        body["stream"] = True
        if tools:
            body["tools"] = tools
        if system:
            body["system"] = system
        body["messages"] = messages  # the growing part last
        return body

    def fallback(self, model: str, status: int, text: str) -> bool:
        """A model that refused thinking "enabled" (a manual budget) is asked to think
        adaptively from then on; True to resend. The newest models take only that."""
        low = text.lower()
        # (Not a refusal of thinking with a forced tool_choice: adaptive thinking fares no better.)
        refused = "thinking" in low and ("adaptive" in low or "enabled" in low)
        refused = refused and "tool_choice" not in low
        return status == 400 and refused and self.refuse(model, _BUDGET)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; every failure is raised as ProviderError."""
        if not self._api_key and urlsplit(self.base_url).hostname == _OFFICIAL_HOST:
            raise ProviderError(
                f"{self.name}: no API key: set ANTHROPIC_API_KEY, or apiKey / apiKeyEnv in "
                f"providers.{self.name}",
                "auth",
            )
        url = f"{self.base_url}/messages"
        attempt = 0
        while True:
            response = await self.open_stream(url, request.model, lambda: self.build_body(request))
            asm = MessageAssembler(provider=self.name)
            shown = False
            try:
                async with contextlib.aclosing(self._events(response, asm)) as events:
                    async for ev in events:
                        shown = True
                        yield ev
            except ProviderError as err:
                # An `error` event (overloaded) before anything streamed: the answer was not
                # accepted yet, so it is retried as an error status would be.
                if shown or err.code != "server_error":
                    raise
                await self.options.backoff_or_raise(err, attempt, None)
                attempt += 1
                continue
            yield asm.finish()
            return

    async def _events(
        self, response: httpx.Response, asm: MessageAssembler
    ) -> AsyncGenerator[StreamEvent, None]:
        """The events of one answer's body; the response is closed however it ends."""
        if "text/event-stream" not in response.headers.get("content-type", ""):
            # A gateway that answered with one whole Message instead of a stream.
            try:
                raw = await response.aread()
            except httpx.HTTPError as exc:
                raise from_httpx(exc, provider=self.name, streaming=True) from None
            finally:
                await response.aclose()
            for event in message_events(_message(raw, asm)):
                for ev in asm.feed(event):
                    yield ev
            return
        batches = self.sse_data(response, asm.text)
        try:
            async for datas in batches:
                for data in datas:
                    for ev in asm.feed_data(data):
                        yield ev
                    if asm.done:
                        return
        finally:
            await batches.aclose()


def _message(raw: bytes, asm: MessageAssembler) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except ValueError:
        message = None
    if not isinstance(message, dict) or message.get("type") != "message":
        raise asm.error("the server answered with neither a stream nor a message", "bad_response")
    return message
