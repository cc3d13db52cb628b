"""browser_navigate, browser_read and browser_screenshot."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ggd.app.media import MediaStore
from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .session import BrowserSession
from .ssrf import BlockedURLError, Guard, refusal, with_scheme

READ_LIMIT = 12_000
SessionFactory = Callable[[], BrowserSession]


def _url(args: dict[str, Any]) -> str:
    url = args.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ToolError("url must be a non-empty string")
    return with_scheme(url)


class BrowserNavigate(Tool):
    """Open a public web page (asks first; private addresses are refused before asking)."""

    name = "browser_navigate"
    deferred = True
    description = "Open a public http(s) URL in a headless browser. Asks the user first."
    parameters = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}

    def __init__(
        self,
        session: SessionFactory,
        guard: Guard,
        private: frozenset[tuple[str, int]] = frozenset(),
    ) -> None:
        self.session = session
        self.guard = guard
        self.private = private

    def summary(self, args: dict[str, Any]) -> str:
        return f"browser_navigate {str(args.get('url', ''))[:200]}"

    def _allowed_private(self, url: str) -> bool:
        _scheme, host, port = self.guard.parse(url)
        return (host, port) in self.private

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        url = _url(args)
        try:
            private = self._allowed_private(url)
        except BlockedURLError as exc:
            raise ToolError(refusal(exc)) from None
        if private:  # the user's own server: always asked, in every approval mode
            return ApprovalInfo(
                summary=f"open {url}",
                details=url,
                risk="dangerous",
                risk_reason="a private address allowed by browser.allowPrivateOrigins",
            )
        return ApprovalInfo(summary=f"open {url}", details=url, risk="normal")

    async def precheck(self, args: dict[str, Any], ctx: ToolContext) -> None:
        """The full guard (DNS included) runs before anyone is asked."""
        url = _url(args)
        try:
            if not self._allowed_private(url):
                await self.guard.check(url)
        except BlockedURLError as exc:
            raise ToolError(refusal(exc)) from None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        url = _url(args)
        session = self.session()
        before = len(session.blocked)
        try:
            status, final = await session.navigate(url)
        except BlockedURLError as exc:
            raise ToolError(refusal(exc)) from None
        except Exception as exc:
            raise ToolError(f"navigation failed: {_short(exc)}") from None
        refused = len(session.blocked) - before
        note = f"\n{refused} request(s) were refused by the SSRF guard" if refused else ""
        return ToolResult(output=f"opened {final} (HTTP {status}){note}")


class BrowserRead(Tool):
    """The current page's visible text."""

    name = "browser_read"
    deferred = True
    description = "Read the visible text, title and URL of the page opened with browser_navigate."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def __init__(self, session: SessionFactory) -> None:
        self.session = session

    def summary(self, args: dict[str, Any]) -> str:
        return "browser_read"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary="browser_read", risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            page = await self.session().read(READ_LIMIT)
        except Exception as exc:
            raise ToolError(f"cannot read the page: {_short(exc)}") from None
        return ToolResult(output=f"# {page.title}\n{page.url}\n\n{page.text}")


class BrowserScreenshot(Tool):
    """A PNG of the current page, stored as media (clients fetch it by id)."""

    name = "browser_screenshot"
    deferred = True
    description = "Take a screenshot of the page opened with browser_navigate."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def __init__(self, session: SessionFactory, media: MediaStore) -> None:
        self.session = session
        self.media = media

    def summary(self, args: dict[str, Any]) -> str:
        return "browser_screenshot"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary="browser_screenshot", risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            png, _url_now = await self.session().screenshot()
        except Exception as exc:
            raise ToolError(f"cannot take a screenshot: {_short(exc)}") from None
        item = await asyncio.to_thread(self.media.save, png, "image/png", "browser_screenshot")
        return ToolResult(
            output=f"screenshot saved as media {item.id} ({item.size} bytes, PNG)",
            details={"mediaId": item.id, "mime": item.mime},
        )


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
