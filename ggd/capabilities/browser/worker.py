"""The Playwright side of the browser, run as its own process: `python -P worker.py CONFIG`.

The daemon starts this file (not the package: nothing of ggd is imported here) with a scrubbed
environment, so neither Playwright's Node driver nor Chromium ever holds the daemon's API keys or
tokens. Chromium sends all its traffic through the daemon's guard proxy (CONFIG names its port) and
runs its own sandbox unless this process is root (Chromium refuses its sandbox as root).

It speaks JSON lines: one request on stdin, one answer on stdout, in order. Requests:
{"op": "navigate", "url"}, {"op": "read", "limit"}, {"op": "shot"}. Answers: {"ok": {...}} or
{"error": {"kind", "message"}}. The first line it writes is {"ready": {...}} once Chromium runs.
End of stdin closes the browser and ends the process.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import sys
from typing import Any

CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-dev-shm-usage",
    # WebRTC may only use the proxy (no UDP of its own to a private address).
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
]
# Signs that the page replaced its document while we were reading it.
_NAVIGATING = ("context was destroyed", "because of a navigation", "Cannot find context")
READ_ATTEMPTS = 5
JS_TEXT = (
    "() => [document.title, document.body ? document.body.innerText : '', document.readyState]"
)


def chromium_args(proxy_port: int) -> list[str]:
    """Chromium's flags: everything through the proxy, loopback included (`<-loopback>`)."""
    return [
        *CHROMIUM_ARGS,
        f"--proxy-server=http://127.0.0.1:{proxy_port}",
        "--proxy-bypass-list=<-loopback>",
    ]


def use_sandbox(euid: int) -> bool:
    """Chromium's own sandbox, except as root where Chromium cannot run it."""
    return euid != 0


class Unreadable(Exception):
    """The page kept navigating while it was read."""


async def _read(page: Any, limit: int, timeout_ms: float) -> dict[str, Any]:
    from playwright.async_api import Error as PlaywrightError

    for attempt in range(READ_ATTEMPTS):
        with contextlib.suppress(PlaywrightError):  # bounded: the whole read stays in timeout
            await page.wait_for_load_state("load", timeout=timeout_ms / READ_ATTEMPTS)
        try:
            title, text, state = await page.evaluate(JS_TEXT)
        except PlaywrightError as exc:
            if any(sign in str(exc) for sign in _NAVIGATING):
                continue  # a new document replaced the old one: wait for it to load, read again
            raise
        text = str(text)
        # A document still being parsed (a navigation committed between the wait and the
        # read) has little or no text yet: read it again once it has loaded. The last attempt
        # takes what a slow page has, but never an empty document mid-navigation.
        if state == "loading" and (attempt < READ_ATTEMPTS - 1 or not text.strip()):
            continue
        if len(text) > limit:
            text = text[:limit] + f"\n[... {len(text) - limit} characters cut]"
        return {"title": str(title), "url": page.url, "text": text}
    raise Unreadable(
        f"the page kept navigating while it was read ({READ_ATTEMPTS} attempts); "
        "it may redirect itself in a loop"
    )


async def _handle(page: Any, request: dict[str, Any], timeout_ms: float) -> dict[str, Any]:
    op = request.get("op")
    if op == "navigate":
        response = await page.goto(str(request["url"]), wait_until="load", timeout=timeout_ms)
        return {"status": response.status if response is not None else None, "url": page.url}
    if op == "read":
        return await _read(page, int(request.get("limit", 0)), timeout_ms)
    if op == "shot":
        png = await page.screenshot(type="png", timeout=timeout_ms)
        return {"png": base64.b64encode(png).decode("ascii"), "url": page.url}
    raise ValueError(f"unknown op {op!r}")


def _reply(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


async def main(config: dict[str, Any]) -> int:
    """Start Chromium, answer requests until stdin ends."""
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    timeout_ms = float(config["timeout"]) * 1000
    sandbox = use_sandbox(os.geteuid())
    why = "" if sandbox else "running as root, where Chromium cannot run its sandbox"
    async with async_playwright() as pw:
        launch = {
            "executable_path": config["chromium"],
            "args": chromium_args(int(config["proxyPort"])),
            "headless": True,
        }
        try:
            browser = await pw.chromium.launch(**launch, chromium_sandbox=sandbox)
        except PlaywrightError as exc:
            if not sandbox:
                _reply({"error": {"kind": "launch", "message": _first_line(exc)}})
                return 1
            # No user namespaces (some containers): the platform cannot sandbox; say so.
            why = f"the sandbox did not start here ({_first_line(exc)[:120]})"
            sandbox = False
            try:
                browser = await pw.chromium.launch(**launch, chromium_sandbox=False)
            except PlaywrightError as again:
                _reply({"error": {"kind": "launch", "message": _first_line(again)}})
                return 1
        closing = False

        def _gone(_browser: Any) -> None:
            # Chromium died under us: end the worker, so the daemon's next call starts afresh.
            if not closing:
                os._exit(3)

        browser.on("disconnected", _gone)
        context = await browser.new_context(service_workers="block", accept_downloads=False)
        context.set_default_timeout(timeout_ms)
        page = await context.new_page()
        _reply({"ready": {"sandbox": sandbox, "why": why, "pid": os.getpid()}})
        while line := await reader.readline():
            try:
                _reply({"ok": await _handle(page, json.loads(line), timeout_ms)})
            except Unreadable as exc:
                _reply({"error": {"kind": "unreadable", "message": str(exc)}})
            except PlaywrightError as exc:
                _reply({"error": {"kind": "page", "message": _first_line(exc)}})
            except (ValueError, KeyError, TypeError) as exc:
                _reply({"error": {"kind": "request", "message": _first_line(exc)}})
        closing = True
        with contextlib.suppress(PlaywrightError):
            await browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(json.loads(sys.argv[1]))))
