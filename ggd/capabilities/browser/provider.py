"""The browser provider: advertised only where Playwright and a Chromium binary are present."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ggd.app import (
    Contribution,
    ScopeContext,
    SessionContext,
    ToolProvider,
)
from ggd.app.media import MediaStore

from .session import BrowserSession
from .ssrf import Guard, allow_from_env, origin_of
from .tools import BrowserNavigate, BrowserRead, BrowserScreenshot

# Test-only: exact host:port pairs the guard lets through (loopback pages served by a test).
# Read from the daemon's environment only, so no config file can open the intranet.
TEST_ALLOW_ENV = "GG_BROWSER_TEST_ALLOW"


class BrowserConfig(BaseModel):
    """config.json `browser`: {enabled, timeoutSeconds, allowPrivateOrigins}.

    allowPrivateOrigins: exact origins (`http://127.0.0.1:8799`) on private addresses the user
    may open on purpose (a dev server). Each opening asks first (risk dangerous), and the origin is
    reachable only while the page the user asked for is on it; nothing else gets through."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    enabled: bool = True
    timeoutSeconds: float = Field(default=30, gt=0, le=300)
    allowPrivateOrigins: list[str] = Field(default_factory=list, max_length=64)

    @field_validator("allowPrivateOrigins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            origin_of(origin)  # ValueError names the bad entry
        return value

    def private_origins(self) -> frozenset[tuple[str, int]]:
        """(host, port) of every allowed private origin."""
        return frozenset(origin_of(o) for o in self.allowPrivateOrigins)


def find_chromium(env: Mapping[str, str]) -> str | None:
    """GG_CHROMIUM, then chromium, chromium-browser, google-chrome on PATH."""
    explicit = env.get("GG_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    path = env.get("PATH")
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name, path=path)
        if found:
            return found
    return None


class BrowserProvider(ToolProvider):
    """browser_navigate, browser_read, browser_screenshot: one browser per session."""

    name = "browser"
    capabilities = ("browser",)

    def __init__(self, home: Any, config: BrowserConfig, env: Mapping[str, str]) -> None:
        self.media = MediaStore(home)
        self.config = config
        self.chromium = find_chromium(env)
        self.guard = Guard(allow=allow_from_env(env.get(TEST_ALLOW_ENV, "")))
        self.has_playwright = importlib.util.find_spec("playwright") is not None

    def available(self, scope: ScopeContext) -> str | None:
        """Absent (not degraded) without Chromium, Playwright or when disabled."""
        if not self.config.enabled:
            return "disabled in config (browser.enabled)"
        if self.chromium is None:
            return "no Chromium found (set GG_CHROMIUM or install chromium)"
        if not self.has_playwright:
            return "the playwright package is not installed"
        return None

    async def build(self, session: SessionContext) -> Contribution:
        """Tools sharing the Service's lazily started browser."""
        state = session.state
        chromium = self.chromium or ""

        def browser() -> BrowserSession:
            if "session" not in state:
                state["session"] = BrowserSession(
                    chromium,
                    self.guard,
                    self.config.timeoutSeconds,
                    session.resources,
                    self.config.private_origins(),
                )
            return state["session"]  # type: ignore[no-any-return]

        return Contribution(
            tools=[
                BrowserNavigate(browser, self.guard, self.config.private_origins()),
                BrowserRead(browser),
                BrowserScreenshot(browser, self.media),
            ]
        )
