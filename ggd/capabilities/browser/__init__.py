"""The browser capability: Playwright driving the system's Chromium in a worker process with a
scrubbed environment, one browser per session, every request Chromium makes (each redirect hop and
subresource included) through the daemon's guard proxy: public addresses only, unless config
allows an exact private origin the user opens on purpose."""

from __future__ import annotations

from ggd.app import Capability, DeferredHandlers, DeferredRows, SetupContext, ToolProvider

from .provider import BrowserConfig, BrowserProvider, find_chromium
from .ssrf import BlockedURLError, Guard, is_public, literal_ip


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [BrowserProvider(setup.home, setup.section(BrowserConfig), setup.env)]


CAPABILITY = Capability(
    name="browser",
    summary="A headless Chromium behind an SSRF guard: navigate (with approval), read, screenshot.",
    config_key="browser",
    config_model=BrowserConfig,
    providers=_providers,
    methods=DeferredRows(__name__, "browser"),
    handlers=DeferredHandlers(__name__),
)

__all__ = [
    "CAPABILITY",
    "BlockedURLError",
    "BrowserConfig",
    "BrowserProvider",
    "Guard",
    "find_chromium",
    "is_public",
    "literal_ip",
]
