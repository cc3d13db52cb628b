"""gg/browser.read and gg/browser.shot: one-off page reads for the CLI, behind the same guard."""

from __future__ import annotations

from pydantic import Field

from ggd.protocol import MethodSpec
from ggd.protocol.base import Params, Result


class BrowserUrlParams(Params):
    """A public URL to open once."""

    url: str = Field(min_length=1, max_length=8192)


class BrowserReadResult(Result):
    """A page's title, final URL and visible text."""

    title: str
    url: str
    text: str


class BrowserShotResult(Result):
    """A screenshot kept as media (fetch it with gg/media.get)."""

    media_id: str
    url: str
    size: int


BROWSER_READ = MethodSpec(
    "gg/browser.read",
    "Open a public URL once and return its title, final URL and visible text.",
    BrowserUrlParams,
    BrowserReadResult,
    example={
        "params": {"url": "https://example.com/"},
        "result": {
            "title": "Example Domain",
            "url": "https://example.com/",
            "text": "Example Domain...",
        },
    },
)
BROWSER_SHOT = MethodSpec(
    "gg/browser.shot",
    "Open a public URL once and keep a PNG screenshot as media.",
    BrowserUrlParams,
    BrowserShotResult,
    example={
        "params": {"url": "https://example.com/"},
        "result": {"mediaId": "m_5f1c0a9e3b7d2c4a", "url": "https://example.com/", "size": 20311},
    },
)
METHODS = (BROWSER_READ, BROWSER_SHOT)
