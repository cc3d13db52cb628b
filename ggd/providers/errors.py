"""The one place where HTTP statuses and httpx exceptions become ProviderError.

Codes (retryable in brackets):
    network [yes]             connect/DNS/timeout before the stream was accepted
    rate_limited [yes]        HTTP 429
    server_error [yes]        HTTP 5xx, or an error object sent inside the stream
    auth [no]                 HTTP 401/403
    bad_request [no]          any other HTTP 4xx
    stream_interrupted [yes]  the stream ended without finish_reason/[DONE] or the connection dropped
    length [no]               finish_reason "length"; the streamed text is in partial_text
    bad_tool_call [no]        a tool call with an empty id/name or arguments that are not a JSON object
    bad_response [no]         anything else the client cannot understand

Messages never carry file paths, tracebacks or credentials.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping

import httpx

from ggd.providers.types import ProviderError

__all__ = ["from_httpx", "from_status", "retry_after_seconds", "server_message"]

_MAX_DETAIL = 300


def server_message(body: str) -> str:
    """Extract a short human message from an error body (OpenAI-style JSON or plain text)."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:_MAX_DETAIL]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or ""
            return str(msg)[:_MAX_DETAIL]
        if isinstance(err, str):
            return err[:_MAX_DETAIL]
    return text[:_MAX_DETAIL]


def from_status(status: int, body: str, *, provider: str) -> ProviderError:
    """Map a non-200 HTTP answer (received before streaming started)."""
    detail = server_message(body)
    if status == 429:
        return ProviderError(
            f"{provider}: rate limited (HTTP 429)", "rate_limited", retryable=True, status=status
        )
    if status >= 500:
        suffix = f": {detail}" if detail else ""
        return ProviderError(
            f"{provider}: server error (HTTP {status}){suffix}",
            "server_error",
            retryable=True,
            status=status,
        )
    if status in (401, 403):
        # The server's text may echo part of the key; keep it out of the message.
        return ProviderError(
            f"{provider}: authentication failed (HTTP {status}); check the API key",
            "auth",
            status=status,
        )
    if 400 <= status < 500:
        suffix = f": {detail}" if detail else ""
        return ProviderError(
            f"{provider}: request rejected (HTTP {status}){suffix}", "bad_request", status=status
        )
    return ProviderError(f"{provider}: unexpected HTTP {status}", "bad_response", status=status)


def from_httpx(
    exc: httpx.HTTPError, *, provider: str, streaming: bool, partial_text: str = ""
) -> ProviderError:
    """Map an httpx exception; `streaming` says whether the 200 stream had been accepted."""
    if streaming:
        kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "was interrupted"
        return ProviderError(
            f"{provider}: the response stream {kind}",
            "stream_interrupted",
            retryable=True,
            partial_text=partial_text,
        )
    at = _where(exc)
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(f"{provider}: request to {at} timed out", "network", retryable=True)
    if isinstance(exc, httpx.TransportError):
        why = str(exc).strip()
        return ProviderError(
            f"{provider}: cannot reach the model server at {at}"
            + (f" ({why})" if why and len(why) < 120 else "")
            + "; check that it runs and the provider's baseUrl (or OPENAI_BASE_URL)",
            "network",
            retryable=True,
        )
    return ProviderError(f"{provider}: HTTP client error", "bad_response")


def _where(exc: httpx.HTTPError) -> str:
    """The URL a failed request went to, without query or credentials."""
    try:
        url = exc.request.url
    except RuntimeError:  # no request attached
        return "the configured URL"
    return str(url.copy_with(query=None, fragment=None, username=None, password=None))


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Parse Retry-After (delta seconds or an HTTP date) into seconds, or None."""
    value = headers.get("retry-after") or headers.get("Retry-After")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
