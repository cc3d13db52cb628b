"""The browser capability: Playwright driving the system's Chromium, one browser per session, every
request behind an SSRF guard (public addresses only, redirects and subresources included)."""

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
