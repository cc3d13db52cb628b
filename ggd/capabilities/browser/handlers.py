"""Handlers of gg/browser.read and gg/browser.shot: a browser for one call, closed after it."""

from __future__ import annotations

import asyncio
import contextlib

from ggd.app import HandlerContext
from ggd.app.media import MediaStore
from ggd.protocol import errors as E

from .protocol import BrowserReadResult, BrowserShotResult, BrowserUrlParams
from .provider import TEST_ALLOW_ENV, BrowserConfig, find_chromium
from .session import BrowserSession
from .ssrf import BlockedURLError, Guard, allow_from_env
from .tools import READ_LIMIT


async def _open(ctx: HandlerContext, url: str, stack: contextlib.AsyncExitStack) -> BrowserSession:
    cfg = ctx.section(BrowserConfig)
    chromium = find_chromium(ctx.env)
    if not cfg.enabled or chromium is None:
        raise E.CapabilityUnavailableError(
            "the browser is not available here: install chromium or set GG_CHROMIUM"
        )
    guard = Guard(allow=allow_from_env(ctx.env.get(TEST_ALLOW_ENV, "")))
    try:
        await guard.check(url)
    except BlockedURLError as exc:
        raise E.InvalidParamsError(f"invalid params: url: refused: {exc}") from None
    session = BrowserSession(chromium, guard, cfg.timeoutSeconds, stack)
    try:
        await session.navigate(url)
    except Exception as exc:
        raise E.InvalidActionError(
            f"could not open the page: {str(exc).splitlines()[0][:200]}"
        ) from None
    return session


async def browser_read(ctx: HandlerContext, params: BrowserUrlParams) -> BrowserReadResult:
    """Read a page once."""
    async with contextlib.AsyncExitStack() as stack:
        page = await (await _open(ctx, params.url, stack)).read(READ_LIMIT)
    return BrowserReadResult(title=page.title, url=page.url, text=page.text)


async def browser_shot(ctx: HandlerContext, params: BrowserUrlParams) -> BrowserShotResult:
    """Screenshot a page once."""
    async with contextlib.AsyncExitStack() as stack:
        session = await _open(ctx, params.url, stack)
        png = await session.screenshot()
        final = (await session.read(0)).url
    item = await asyncio.to_thread(
        MediaStore(ctx.services.home).save, png, "image/png", "browser_shot"
    )
    return BrowserShotResult(media_id=item.id, url=final, size=item.size)


HANDLERS = {
    "gg/browser.read": browser_read,
    "gg/browser.shot": browser_shot,
}
