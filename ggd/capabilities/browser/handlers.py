"""Handlers of gg/browser.read and gg/browser.shot: a browser for one call, closed after it."""

from __future__ import annotations

import asyncio
import contextlib
import os

from ggd.app import HandlerContext
from ggd.app.media import MediaStore
from ggd.protocol import errors as E

from .protocol import BrowserReadResult, BrowserShotResult, BrowserUrlParams
from .provider import TEST_ALLOW_ENV, BrowserConfig, find_chromium
from .session import BrowserError, BrowserSession
from .ssrf import BlockedURLError, Guard, allow_from_env, refusal, with_scheme
from .tools import READ_LIMIT


async def _open(ctx: HandlerContext, url: str, stack: contextlib.AsyncExitStack) -> BrowserSession:
    cfg = ctx.section(BrowserConfig)
    chromium = find_chromium(os.environ)
    if not cfg.enabled or chromium is None:
        raise E.CapabilityUnavailableError(
            "the browser is not available here: install chromium or set GG_CHROMIUM"
        )
    guard = Guard(allow=allow_from_env(os.environ.get(TEST_ALLOW_ENV, "")))
    # The URL is the one the user typed: an origin they allowed in config opens without asking.
    session = BrowserSession(chromium, guard, cfg.timeoutSeconds, stack, cfg.private_origins())
    try:
        if not session.allows_private(url):
            await guard.check(url)
    except BlockedURLError as exc:
        raise E.InvalidParamsError(f"invalid params: url: {refusal(exc)}") from None
    try:
        await session.navigate(url)
    except BlockedURLError as exc:
        raise E.InvalidActionError(f"could not open the page: {refusal(exc)}") from None
    except BrowserError as exc:
        raise E.InvalidActionError(f"could not open the page: {exc}") from None
    return session


async def browser_read(ctx: HandlerContext, params: BrowserUrlParams) -> BrowserReadResult:
    """Read a page once (a scheme-less address means http://)."""
    async with contextlib.AsyncExitStack() as stack:
        session = await _open(ctx, with_scheme(params.url), stack)
        try:
            page = await session.read(READ_LIMIT)
        except BrowserError as exc:
            raise E.InvalidActionError(f"could not read the page: {exc}") from None
    return BrowserReadResult(title=page.title, url=page.url, text=page.text)


async def browser_shot(ctx: HandlerContext, params: BrowserUrlParams) -> BrowserShotResult:
    """Screenshot a page once."""
    async with contextlib.AsyncExitStack() as stack:
        session = await _open(ctx, with_scheme(params.url), stack)
        try:
            png, final = await session.screenshot()
        except BrowserError as exc:
            raise E.InvalidActionError(f"could not take a screenshot: {exc}") from None
    item = await asyncio.to_thread(
        MediaStore(ctx.services.home).save, png, "image/png", "browser_shot"
    )
    return BrowserShotResult(media_id=item.id, url=final, size=item.size)


HANDLERS = {
    "gg/browser.read": browser_read,
    "gg/browser.shot": browser_shot,
}
