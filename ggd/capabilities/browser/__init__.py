"""The browser capability: Playwright driving the system's Chromium in a worker process with a
scrubbed environment, one browser per session, every request Chromium makes (each redirect hop and
subresource included) through the daemon's guard proxy: public addresses only, unless config
allows an exact private origin the user opens on purpose."""

from __future__ import annotations

from .provider import CAPABILITY, BrowserConfig, BrowserProvider, find_chromium
from .ssrf import BlockedURLError, Guard, is_public, literal_ip

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
