"""One headless Chromium per session Service, behind the guard proxy, in its own worker process.

The daemon keeps the guard: a `GuardProxy` in this process is Chromium's only way out, so every
request it makes (each redirect hop, subresources, frames, workers, WebSockets) is checked against
the URL Chromium itself computed, and connects to the addresses that were checked. Playwright and
Chromium run in `worker.py`, a child process started with a scrubbed environment (PATH, HOME,
locale, TMPDIR: no API key or token of the daemon). The browser starts on first use and is closed
with the Service (its exit stack).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .proxy import Blocked, GuardProxy
from .ssrf import BlockedURLError, Guard

log = logging.getLogger("ggd.browser")

WORKER = Path(__file__).with_name("worker.py")
# What the driver and Chromium inherit from the daemon: nothing that could be a secret.
INHERITED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")
# A screenshot arrives base64 in one line.
LINE_LIMIT = 64 * 1024 * 1024
START_TIMEOUT = 60.0


class BrowserError(Exception):
    """The page could not be opened or read; the message says why (no traceback, no path)."""


@dataclass
class PageText:
    """What browser_read returns."""

    title: str
    url: str
    text: str


def browser_env(source: Mapping[str, str]) -> dict[str, str]:
    """The worker's environment: INHERITED_ENV only."""
    return {k: source[k] for k in INHERITED_ENV if k in source}


class BrowserSession:
    """A lazily started browser and one page; all methods bounded by `timeout` seconds.

    `private` holds (host, port) pairs of private origins the user allowed in config; one becomes
    reachable only after a navigation the user asked for (or approved) to that very origin."""

    def __init__(
        self,
        executable: str,
        guard: Guard,
        timeout: float,
        resources: Any,
        private: frozenset[tuple[str, int]] = frozenset(),
    ) -> None:
        self.executable = executable
        self.guard = guard
        self.timeout = timeout
        self.private = private
        self.opened: set[tuple[str, int]] = set()
        self._resources = resources
        self._lock = asyncio.Lock()
        self._proc: asyncio.subprocess.Process | None = None
        self._proxy: GuardProxy | None = None
        self.sandboxed: bool | None = None

    @property
    def blocked(self) -> list[Blocked]:
        """Requests the proxy refused so far."""
        return self._proxy.blocked if self._proxy is not None else []

    async def _check(self, host: str, port: int) -> list[str]:
        return await self.guard.addresses(host, port, frozenset(self.opened))

    async def _start(self) -> asyncio.subprocess.Process:
        if self._proc is not None:
            return self._proc
        if self._proxy is None:  # one proxy for the session, across worker restarts
            self._proxy = GuardProxy(self._check, self.timeout)
            await self._proxy.start()
            self._resources.push_async_callback(self._proxy.close)
        port = self._proxy.port
        config = {"chromium": self.executable, "proxyPort": port, "timeout": self.timeout}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-P",  # not the worker's folder first on sys.path (its neighbours are daemon modules)
            str(WORKER),
            json.dumps(config),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=browser_env(os.environ),
            limit=LINE_LIMIT,
        )
        self._resources.push_async_callback(_stop, proc)
        self._proc = proc
        first = await self._line(proc, START_TIMEOUT)
        if "ready" not in first:
            raise BrowserError(f"the browser did not start: {_message(first)}")
        self.sandboxed = bool(first["ready"].get("sandbox"))
        if not self.sandboxed:
            # As root that is expected (documented); elsewhere the platform refused the sandbox.
            log.log(
                logging.INFO if os.geteuid() == 0 else logging.WARNING,
                "Chromium runs without its sandbox",
                extra={"reason": str(first["ready"].get("why", ""))[:200]},
            )
        return proc

    async def _line(self, proc: asyncio.subprocess.Process, seconds: float) -> dict[str, Any]:
        assert proc.stdout is not None
        try:
            raw = await asyncio.wait_for(proc.stdout.readline(), seconds)
        except TimeoutError:
            await _stop(proc)
            self._proc = None
            raise BrowserError(f"the browser did not answer within {seconds:g} s") from None
        if not raw:
            self._proc = None
            raise BrowserError("the browser process ended")
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise BrowserError("the browser sent something unexpected")
        return value

    async def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        async with self._lock:
            proc = await self._start()
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            await proc.stdin.drain()
            answer = await self._line(proc, self.timeout * 2 + 5)
        if "ok" in answer and isinstance(answer["ok"], dict):
            return answer["ok"]
        raise BrowserError(_message(answer))

    def allows_private(self, url: str) -> bool:
        """Whether url is on a private origin the user allowed in config."""
        try:
            _scheme, host, port = Guard.parse(url)
        except BlockedURLError:
            return False
        return (host, port) in self.private

    async def navigate(self, url: str) -> tuple[int | None, str]:
        """Go to url; (HTTP status, final URL). BlockedURLError when the guard stopped the page."""
        _scheme, host, port = Guard.parse(url)
        # A private origin allowed in config opens for the page the user asked for (or approved)
        # on it, and closes again when the session goes elsewhere.
        self.opened = {(host, port)} & set(self.private)
        mark = len(self.blocked)
        try:
            result = await self._call({"op": "navigate", "url": url})
        except BrowserError as exc:
            # A refused CONNECT (https, ws) fails the navigation; a refused http:// request is
            # answered with a 403 page and handled below. Chromium's own background requests are
            # refused too, so only a tunnel refusal during a tunnel failure is blamed.
            tunnels = [b for b in self.blocked[mark:] if "://" not in b.target]
            if tunnels and "ERR_TUNNEL_CONNECTION_FAILED" in str(exc):
                raise BlockedURLError(f"{tunnels[-1].target}: {tunnels[-1].reason}") from None
            raise exc
        final = str(result.get("url", ""))
        for item in self.blocked[mark:]:
            if _same_origin(final, item):
                raise BlockedURLError(f"{item.target}: {item.reason}")
        status = result.get("status")
        return (int(status) if isinstance(status, int) else None), final

    async def read(self, limit: int) -> PageText:
        """The page's title, URL and visible text (cut at limit characters)."""
        result = await self._call({"op": "read", "limit": limit})
        return PageText(str(result["title"]), str(result["url"]), str(result["text"]))

    async def screenshot(self) -> tuple[bytes, str]:
        """A PNG of the viewport and the page's URL."""
        result = await self._call({"op": "shot"})
        return base64.b64decode(result["png"]), str(result["url"])


def _same_origin(url: str, item: Blocked) -> bool:
    try:
        _scheme, host, port = Guard.parse(url)
    except BlockedURLError:
        return False
    return (host, port) == (item.host, item.port)


def _message(answer: dict[str, Any]) -> str:
    error = answer.get("error")
    if isinstance(error, dict):
        return str(error.get("message", "unknown error"))[:300]
    return "unknown error"


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """End the worker: close its stdin (it closes Chromium), then terminate, then kill."""
    if proc.returncode is not None:
        return
    with contextlib.suppress(Exception):
        if proc.stdin is not None:
            proc.stdin.close()
    for signal_it in (None, proc.terminate, proc.kill):
        if signal_it is not None:
            with contextlib.suppress(ProcessLookupError):
                signal_it()
        try:
            await asyncio.wait_for(proc.wait(), 5)
            return
        except TimeoutError:
            continue
    log.warning("browser worker did not stop")
