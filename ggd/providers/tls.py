"""The default TLS context, built once in a thread while the daemon is still starting.

httpx builds an `ssl.create_default_context(cafile=certifi.where())` for every client; parsing
the CA bundle takes 20-40 ms, on the path to the first model request. OpenSSL does that work
with the GIL released, so a thread started early does it on another core while the daemon
imports. `context()` hands it to a client. The context is the one httpx would build
(`httpx.create_ssl_context()`: SSL_CERT_FILE, else SSL_CERT_DIR, else certifi's bundle).
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
from concurrent.futures import Future

__all__ = ["context", "warm"]

_lock = threading.Lock()
_future: Future[ssl.SSLContext] | None = None


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
