"""What the native wire kinds (`openai-responses`, `gemini`) share: one HTTP client, retries, SSE.

Each kind builds its own body and reads its own events; this base sends the body as
deterministic JSON bytes (the same request prefix byte for byte from one step to the next,
so the provider's automatic prefix cache can match it), retries network errors, 429 and 5xx
before a stream is accepted (honouring `retry-after`, errors.py's rules), and turns a
stream that breaks after it was accepted into `stream_interrupted` keeping the text so far.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import AsyncGenerator, Callable
from typing import Any

import httpx

from ggd.providers import tls
from ggd.providers.assembly import SSEStream
from ggd.providers.errors import from_httpx, from_status
from ggd.providers.openai_compat import ProviderOptions, open_stream
from ggd.providers.params import RequestParams
from ggd.providers.probe import probe_get
from ggd.providers.types import ChatProvider, Probe, ProviderError

__all__ = ["NativeProvider", "decode_event", "dumps", "parse_arguments"]


def dumps(body: Any) -> bytes:
    """Compact JSON in insertion order: equal bodies are equal bytes, prefixes stay prefixes."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class NativeProvider(ChatProvider):
    """Base of a streaming provider whose body and events are its own API's."""

    kind = "native"

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        name: str = "provider",
        options: ProviderOptions | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.name = name
        self._api_key = api_key
        self.options = options or ProviderOptions()
        self._client: httpx.AsyncClient | None = None
        self._tls = tls.needs_tls(self.base_url)
        if self._tls:
            tls.warm()
        self.params = RequestParams()
        self.model_params: dict[str, RequestParams] = {}
        # model -> the optional fields its server refused (a 400 "not supported"), left out since.
        self.refused: dict[str, set[str]] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    def auth_headers(self) -> dict[str, str]:
        """The headers that carry the API key (the kind's own)."""
        return {}

    def params_for(self, model: str) -> RequestParams:
        """The configured parameters of `model`: its modelParams over the provider's."""
        own = self.model_params.get(model)
        return own.over(self.params) if own is not None else self.params

    async def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            verify: ssl.SSLContext | bool = (
                (await tls.context() or True) if self._tls else tls.untrusting_context()
            )
            if self._client is not None:  # another request made it meanwhile
                return self._client
            o = self.options
            headers = {"Accept": "text/event-stream", **o.headers}
            if self._api_key:
                headers.update(self.auth_headers())
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(o.read_timeout, connect=o.connect_timeout),
                headers=headers,
                transport=o.transport,
                verify=verify,
            )
        return self._client

    async def probe(self) -> Probe:
        """GET {base_url}/models with the kind's key header: whether the API answers and accepts it."""
        return await probe_get(await self._http(), f"{self.base_url}/models")

    async def get_json(self, url: str) -> Any:
        """GET `url` as JSON, or None on any failure (model listings are best effort)."""
        try:
            client = await self._http()
            resp = await client.get(url, headers={"Accept": "application/json"}, timeout=5.0)
            return resp.json() if resp.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            return None

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    def fallback(self, model: str, status: int, text: str) -> bool:
        """Drop an optional field the server refused (HTTP `status`, body `text`); True: resend."""
        return False

    def refuse(self, model: str, name: str) -> bool:
        """Remember that `model` refuses the optional field `name`; False when already known."""
        known = self.refused.setdefault(model, set())
        if name in known:
            return False
        known.add(name)
        return True

    def sends(self, model: str, name: str) -> bool:
        """False once `model`'s server refused the optional field `name`."""
        return name not in self.refused.get(model, ())

    def status_error(self, status: int, text: str) -> ProviderError:
        """The error of a non-200 answer (errors.py's mapping; a kind may refine it)."""
        return from_status(status, text, provider=self.name)

    async def open_stream(
        self, url: str, model: str, build: Callable[[], dict[str, Any]]
    ) -> httpx.Response:
        """POST the body `build` makes; retry network errors, 429 and 5xx; the 200 response."""
        client = await self._http()
        headers = {"Content-Type": "application/json"}

        def refused(status: int, text: str) -> ProviderError | None:
            return None if self.fallback(model, status, text) else self.status_error(status, text)

        return await open_stream(
            client,
            lambda: client.build_request("POST", url, content=dumps(build()), headers=headers),
            self.options,
            self.name,
            refused,
        )

    async def sse_data(
        self, response: httpx.Response, partial: list[str]
    ) -> AsyncGenerator[list[str], None]:
        """The data payloads of `response`'s events, a batch per read; closes the response.

        `partial` is the caller's list of text streamed so far: a broken stream's error keeps it.
        """
        sse = SSEStream()
        try:
            async for chunk in response.aiter_bytes():
                datas = sse.feed(chunk)
                if datas:
                    yield datas
            tail = sse.flush()
            if tail:
                yield tail
        except httpx.HTTPError as exc:
            raise from_httpx(
                exc, provider=self.name, streaming=True, partial_text="".join(partial)
            ) from None
        finally:
            await response.aclose()


def decode_event(data: str, provider: str, partial: list[str]) -> dict[str, Any]:
    """One SSE data payload as a JSON object, or a bad_response error keeping the partial text."""
    try:
        obj = json.loads(data)
    except ValueError:
        obj = None
    if not isinstance(obj, dict):
        raise ProviderError(
            f"{provider}: the server sent malformed stream data",
            "bad_response",
            partial_text="".join(partial),
        )
    return obj


def parse_arguments(raw: str, name: str, provider: str, partial: list[str]) -> dict[str, Any]:
    """A tool call's JSON arguments as an object, or a bad_tool_call error."""
    raw = raw.strip()
    try:
        args = json.loads(raw) if raw else {}
    except ValueError:
        args = None
    if not isinstance(args, dict):
        raise ProviderError(
            f"{provider}: the model sent invalid JSON arguments for tool '{name[:64]}'",
            "bad_tool_call",
            partial_text="".join(partial),
        )
    return args
