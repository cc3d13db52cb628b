"""The default TLS context, built once in a thread while the daemon is still starting.

httpx builds an `ssl.create_default_context(cafile=certifi.where())` for every client; parsing
the CA bundle takes 20-40 ms, on the path to the first model request. OpenSSL does that work
with the GIL released, so a thread started early does it on another core while the daemon
imports. `context()` hands it to a client. The context is the one httpx would build
(`httpx.create_ssl_context()`: SSL_CERT_FILE, else SSL_CERT_DIR, else certifi's bundle).

Only a client that may speak TLS needs it: one whose base URL is https, or whose plain-http
requests go through an https proxy. A plain-http client (a local Ollama, LM Studio, vLLM or the
fake model) gets `untrusting_context()` and the bundle is never parsed: ~240 M instructions,
a tenth of the start-up window's, on a second core a loaded machine may not have spare.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path

__all__ = ["context", "needs_tls", "untrusting_context", "warm", "warm_early"]

_lock = threading.Lock()
_future: Future[ssl.SSLContext] | None = None
_untrusting: ssl.SSLContext | None = None
# The proxy variables httpx (trust_env) applies to a plain-http URL.
_HTTP_PROXY_VARS = ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY")


def needs_tls(base_url: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether a client of `base_url` may open a TLS connection (https, or an https proxy)."""
    if not base_url.lower().startswith("http://"):
        return True  # https, or something unexpected: keep httpx's default trust
    env = os.environ if env is None else env
    return any(env.get(var, "").lower().startswith("https:") for var in _HTTP_PROXY_VARS)


def untrusting_context() -> ssl.SSLContext:
    """A verifying client context that trusts no CA, for a client that never speaks TLS.

    Should one ever be asked to (redirects are not followed: only a misconfiguration could),
    the handshake fails certificate verification: closed, never unverified.
    """
    global _untrusting
    if _untrusting is None:
        _untrusting = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return _untrusting


def warm_early(config_path: Path | None, env: Mapping[str, str] | None = None) -> None:
    """At start-up, before the config is read: `warm()` unless the model is surely plain http.

    Surely: OPENAI_BASE_URL is http:// (no https proxy), and neither config.json nor GG_MODEL
    mentions an https URL or a well-known https provider. A wrong guess costs time, never
    trust: an https provider that finds nothing warmed warms when it is made.
    """
    from .registry import WELL_KNOWN

    env = os.environ if env is None else env
    base = env.get("OPENAI_BASE_URL", "")
    if not base or needs_tls(base, env):
        warm()
        return
    https_names = [name for name, url in WELL_KNOWN.items() if url.startswith("https:")]
    try:
        text = config_path.read_text(errors="replace").lower() if config_path else ""
    except OSError:
        text = ""  # no config file: the environment decides
    model = env.get("GG_MODEL", "").lower()
    if "https:" in text or any(
        f'"{name}"' in text or model.startswith(f"{name}:")
        for name in https_names
        if name != "openai"
    ):
        warm()


def warm() -> None:
    """Start building the default context in a daemon thread (once; a no-op afterwards)."""
    global _future
    with _lock:
        if _future is not None:
            return
        future: Future[ssl.SSLContext] = Future()
        _future = future

    def build() -> None:
        try:
            future.set_result(_default_context())
        except BaseException as exc:  # handed to the awaiting client, which falls back
            future.set_exception(exc)

    threading.Thread(target=build, name="ggd-tls-warm", daemon=True).start()


def _default_context() -> ssl.SSLContext:
    """httpx's default (verify=True, trust_env=True) context, branch for branch."""
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


async def context() -> ssl.SSLContext | None:
    """The warmed context, or None when none was warmed or building it failed."""
    future = _future
    if future is None:
        return None
    try:
        return await asyncio.wrap_future(future)
    except Exception:
        return None
