"""One headless Chromium per session Service, driven by Playwright, with every request guarded.

The browser starts on first use and is closed with the Service (its exit stack). Every request the
page makes passes the SSRF guard in a route handler; the handler fetches it itself with redirects
off and checks each `Location` before handing the redirect to the page, so neither a redirect nor
a subresource reaches a non-public address after the user approved the first URL. Service workers
are blocked (they could fetch around the route) and WebSocket connections are guarded too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from .ssrf import BlockedURLError, Guard

log = logging.getLogger("ggd.browser")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


@dataclass
class PageText:
    """What browser_read returns."""

    title: str
    url: str
    text: str


class BrowserSession:
    """A lazily started browser and one page; all methods bounded by `timeout` seconds."""

    def __init__(self, executable: str, guard: Guard, timeout: float, resources: Any) -> None:
        self.executable = executable
        self.guard = guard
        self.timeout = timeout
        self._resources = resources
        self._lock = asyncio.Lock()
        self._page: Any = None
        self.blocked: list[str] = []

    async def page(self) -> Any:
        """The page, starting Chromium on first use (its shutdown goes on the Service's stack)."""
        async with self._lock:
            if self._page is not None:
                return self._page
            from playwright.async_api import async_playwright  # lazy: ~0.3 s and a node driver

            pw = await async_playwright().start()
            self._resources.push_async_callback(_quietly, pw.stop)
            browser = await pw.chromium.launch(
                executable_path=self.executable, args=CHROMIUM_ARGS, headless=True
            )
            self._resources.push_async_callback(_quietly, browser.close)
            context = await browser.new_context(service_workers="block", accept_downloads=False)
            context.set_default_timeout(self.timeout * 1000)
            await context.route("**/*", self._route)
            route_ws = getattr(context, "route_web_socket", None)
            if route_ws is not None:
                await route_ws("**/*", self._route_ws)
            self._page = await context.new_page()
            return self._page

    async def _route(self, route: Any) -> None:
        url = route.request.url
        try:
            await self.guard.check(url)
        except BlockedURLError as exc:
            self._block(url, str(exc))
            await route.abort("blockedbyclient")
            return
        try:
            response = await route.fetch(max_redirects=0, timeout=self.timeout * 1000)
        except Exception as exc:  # the fetch failed: let the page see a failed request
            log.debug("browser fetch failed", extra={"error": str(exc)})
            await route.abort("failed")
            return
        location = response.headers.get("location")
        if 300 <= response.status < 400 and location:
            target = urljoin(url, location)
            try:
                await self.guard.check(target)
            except BlockedURLError as exc:
                self._block(target, str(exc))
                await route.abort("blockedbyclient")
                return
        await route.fulfill(response=response)

    async def _route_ws(self, ws: Any) -> None:
        try:
            await self.guard.check(ws.url.replace("ws", "http", 1))
        except BlockedURLError as exc:
            self._block(ws.url, str(exc))
            await ws.close()
            return
        ws.connect_to_server()

    def _block(self, url: str, why: str) -> None:
        self.blocked.append(url)
        log.info("browser request blocked", extra={"reason": why})

    async def navigate(self, url: str) -> tuple[int | None, str]:
        """Go to url; (HTTP status, final URL)."""
        page = await self.page()
        response = await page.goto(url, wait_until="load", timeout=self.timeout * 1000)
        return (response.status if response is not None else None), page.url

    async def read(self, limit: int) -> PageText:
        """The page's title, URL and visible text (cut at limit characters)."""
        page = await self.page()
        text = await page.inner_text("body") if await page.query_selector("body") else ""
        if len(text) > limit:
            text = text[:limit] + f"\n[... {len(text) - limit} characters cut]"
        return PageText(title=await page.title(), url=page.url, text=text)

    async def screenshot(self) -> bytes:
        """A PNG of the viewport."""
        page = await self.page()
        return bytes(await page.screenshot(type="png", timeout=self.timeout * 1000))


async def _quietly(close: Any) -> None:
    with contextlib.suppress(Exception):
        await close()
