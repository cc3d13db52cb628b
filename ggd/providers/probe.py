"""One GET of a provider's model listing, read as reachable or not and why: `gg models`."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ggd.providers.types import Probe

__all__ = ["listed_ids", "probe_get", "shown_url"]

PROBE_TIMEOUT = 5.0


def shown_url(url: str) -> str:
    """`url` without credentials or query (a gateway may carry a key in either)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def listed_ids(data: Any) -> list[str] | None:
    """Model ids of a listing: OpenAI and Anthropic `{"data": [{"id"}]}`, Gemini `{"models":
    [{"name": "models/x"}]}`; None for any other shape."""
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("data"), list):
        return [str(m["id"]) for m in data["data"] if isinstance(m, dict) and m.get("id")]
    if isinstance(data.get("models"), list):
        return [
            str(m["name"]).removeprefix("models/")
            for m in data["models"]
            if isinstance(m, dict) and m.get("name")
        ]
    return None


async def probe_get(client: httpx.AsyncClient, url: str) -> Probe:
    """GET `url` with the provider's own client (its key headers, its TLS settings)."""
    shown = shown_url(url)
    try:
        resp = await client.get(url, headers={"Accept": "application/json"}, timeout=PROBE_TIMEOUT)
    except httpx.TimeoutException:
        return Probe(False, f"no answer from {shown} within {PROBE_TIMEOUT:g} s")
    except httpx.HTTPError as exc:
        return Probe(False, f"cannot reach {shown}: {type(exc).__name__}")
    if resp.status_code in (401, 403):
        return Probe(True, f"the API key was refused (HTTP {resp.status_code}): check its key")
    if resp.status_code != 200:
        # Reachable; a server that lists no models (404) still serves chat requests.
        return Probe(True, None if resp.status_code == 404 else f"HTTP {resp.status_code}")
    try:
        return Probe(True, listed=listed_ids(resp.json()))
    except ValueError:
        return Probe(True)
