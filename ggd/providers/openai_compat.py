"""Streaming client for OpenAI-compatible chat-completions servers (OpenAI, Ollama, LM Studio, ...)."""

from __future__ import annotations

import asyncio
import random
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ggd.providers import tls
from ggd.providers.assembly import SSEStream, StreamAssembler
from ggd.providers.errors import from_httpx, from_status, retry_after_seconds
from ggd.providers.params import RequestParams
from ggd.providers.probe import probe_get
from ggd.providers.types import ChatProvider, ChatRequest, Probe, ProviderError, StreamEvent

__all__ = ["OpenAICompatProvider", "ProviderOptions", "open_stream"]


@dataclass
class ProviderOptions:
    """Tunables for one provider; tests shrink the backoff and inject sleep/transport."""

    max_retries: int = 2
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 30.0
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    headers: dict[str, str] = field(default_factory=dict)
    transport: httpx.AsyncBaseTransport | None = None
    rng: random.Random = field(default_factory=random.Random)
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    async def backoff_or_raise(
        self, err: ProviderError, attempt: int, retry_after: float | None
    ) -> None:
        """Sleep before the next attempt, or raise `err` when it is final (every wire kind)."""
        if not err.retryable or attempt >= self.max_retries:
            raise err
        if retry_after is not None:
            delay = min(retry_after, self.retry_after_cap)
        else:
            delay = self.rng.uniform(0, min(self.backoff_cap, self.backoff_base * 2**attempt))
        await self.sleep(delay)


async def open_stream(
    client: httpx.AsyncClient,
    build: Callable[[], httpx.Request],
    options: ProviderOptions,
    provider: str,
    refused: Callable[[int, str], ProviderError | None],
) -> httpx.Response:
    """Send `build()`'s request until a 200 answer starts streaming (every wire kind).

    Network errors, 429 and 5xx are retried by `options`; `refused(status, body)` judges any
    other answer: None to send again at once (it adjusted what `build` makes), else the error.
    """
    attempt = 0
    while True:
        try:
            response = await client.send(build(), stream=True)
        except httpx.HTTPError as exc:
            err = from_httpx(exc, provider=provider, streaming=False)
            await options.backoff_or_raise(err, attempt, None)
            attempt += 1
            continue
        if response.status_code == 200:
            return response
        try:
            text = (await response.aread()).decode("utf-8", "replace")
        except httpx.HTTPError:
            text = ""
        finally:
            await response.aclose()
        refusal = refused(response.status_code, text)
        if refusal is None:
            continue
        await options.backoff_or_raise(refusal, attempt, retry_after_seconds(response.headers))
        attempt += 1


class OpenAICompatProvider(ChatProvider):
    """POSTs {base_url}/chat/completions with stream=true and yields TextDelta ... Completed.

    Example:
        provider = OpenAICompatProvider("http://127.0.0.1:11434/v1", None, name="ollama")
        async for ev in provider.stream(ChatRequest(model="qwen", messages=[...])): ...
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        name: str = "openai",
        options: ProviderOptions | None = None,
        *,
        default_model: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.name = name
        self.default_model = default_model
        self._api_key = api_key
        self.options = options or ProviderOptions()
        self._client: httpx.AsyncClient | None = None
        # Only a client that may speak TLS has the CA bundle parsed, in a thread from now on.
        self._tls = tls.needs_tls(self.base_url)
        if self._tls:
            tls.warm()
        # Compatibility fallbacks learnt from 400 answers, remembered for this provider.
        self.send_stream_options = True
        self.max_tokens_field = "max_tokens"
        # Request parameters from config: the provider's, and per model (which win).
        self.params = RequestParams()
        self.model_params: dict[str, RequestParams] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    async def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            # The CA bundle was parsed in a thread since this provider was made (tls.py); True:
            # httpx's own. A plain-http client never verifies a certificate: no bundle at all.
            verify: ssl.SSLContext | bool = (
                (await tls.context() or True) if self._tls else tls.untrusting_context()
            )
            if self._client is not None:  # another request made it meanwhile
                return self._client
            o = self.options
            timeout = httpx.Timeout(o.read_timeout, connect=o.connect_timeout)
            headers = {"Accept": "text/event-stream", **o.headers}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            self._client = httpx.AsyncClient(
                timeout=timeout, headers=headers, transport=o.transport, verify=verify
            )
        return self._client

    async def probe(self) -> Probe:
        """GET {base_url}/models: whether the server answers and accepts the key."""
        return await probe_get(await self._http(), f"{self.base_url}/models")

    async def list_models(self) -> list[str] | None:
        """The model ids GET {base_url}/models lists, or None when the server lists none."""
        try:
            client = await self._http()
            resp = await client.get(
                f"{self.base_url}/models", headers={"Accept": "application/json"}, timeout=5.0
            )
            if resp.status_code != 200:
                return None
            data = resp.json().get("data")
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        if not isinstance(data, list):
            return None
        ids = [str(m["id"]) for m in data if isinstance(m, dict) and m.get("id")]
        return ids or None

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    def params_for(self, model: str) -> RequestParams:
        """The configured parameters of `model`: its modelParams over the provider's."""
        own = self.model_params.get(model)
        return own.over(self.params) if own is not None else self.params

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        """The sampling and limit fields the body of `request` carries, as sent."""
        params = self.params_for(request.model)
        out = params.chat_fields()
        if request.reasoning_effort is not None:  # the run's own choice wins over config's
            out["reasoning_effort"] = request.reasoning_effort
        if not request.tools:
            out.pop("tool_choice", None)  # a tool_choice without tools is refused by servers
        max_tokens = params.max_tokens if params.max_tokens is not None else request.max_tokens
        if max_tokens is not None:
            out[self.max_tokens_field] = max_tokens
        return out

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body for `request`, honouring the learnt compatibility fallbacks."""
        body: dict[str, Any] = self.request_params(request)
        # gg_replay belongs to other wire kinds: Chat Completions servers reject unknown keys.
        messages = [
            {k: v for k, v in m.items() if k != "gg_replay"} if "gg_replay" in m else m
            for m in request.messages
        ]
        # The fixed fields first and the growing `messages` last: each request's body then starts
        # with the bytes of the one before it (bench/provider_prefix.py measures it).
        body.update(model=request.model, stream=True)
        if self.send_stream_options:
            body["stream_options"] = {"include_usage": True}
        if request.tools:
            body["tools"] = request.tools
        body["messages"] = messages
        return body

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; every failure is raised as ProviderError."""
        response = await self._open(request)
        asm = StreamAssembler(provider=self.name)
        try:
            ctype = response.headers.get("content-type", "")
            if "text/event-stream" not in ctype:
                # The server ignored stream=true and answered with one JSON completion.
                for ev in asm.feed_data((await response.aread()).decode("utf-8", "replace")):
                    yield ev
            else:
                sse = SSEStream()
                async for chunk in response.aiter_bytes():
                    for ev in asm.feed_many(sse.feed(chunk)):
                        yield ev
                    if asm.done:
                        break
                if not asm.done:
                    for ev in asm.feed_many(sse.flush()):
                        yield ev
        except httpx.HTTPError as exc:
            raise from_httpx(
                exc, provider=self.name, streaming=True, partial_text=asm.partial_text
            ) from None
        finally:
            await response.aclose()
        yield asm.finish()

    async def _open(self, request: ChatRequest) -> httpx.Response:
        """Send the request; retry network errors, 429 and 5xx; apply 400 fallbacks once each."""
        url = f"{self.base_url}/chat/completions"
        client = await self._http()
        tried: set[str] = set()

        def refused(status: int, text: str) -> ProviderError | None:
            if status == 400 and self._fallback(text, request, tried):
                return None
            return from_status(status, text, provider=self.name)

        return await open_stream(
            client,
            lambda: client.build_request("POST", url, json=self.build_body(request)),
            self.options,
            self.name,
            refused,
        )

    def _fallback(self, text: str, request: ChatRequest, tried: set[str]) -> bool:
        """Adjust the body for a server that rejected an optional field; True to resend."""
        low = text.lower()
        if "stream_options" in low and self.send_stream_options and "stream_options" not in tried:
            tried.add("stream_options")
            self.send_stream_options = False
            return True
        mentions = "max_tokens" in low or "max_completion_tokens" in low
        sends = request.max_tokens is not None or self.params_for(request.model).max_tokens
        if mentions and sends and "max_tokens" not in tried:
            tried.add("max_tokens")
            other = (
                "max_completion_tokens" if self.max_tokens_field == "max_tokens" else "max_tokens"
            )
            self.max_tokens_field = other
            return True
        return False
