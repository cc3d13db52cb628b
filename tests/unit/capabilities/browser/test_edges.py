"""The browser's small decisions: scheme-less addresses, refusal texts, the config allowance,
the worker's environment and Chromium's sandbox."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ggd.capabilities.browser.provider import BrowserConfig
from ggd.capabilities.browser.session import browser_env
from ggd.capabilities.browser.ssrf import (
    BlockedURLError,
    Guard,
    origin_of,
    refusal,
    static_resolver,
    with_scheme,
)
from ggd.capabilities.browser.worker import chromium_args, use_sandbox


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("127.0.0.1:8799", "http://127.0.0.1:8799"),
        ("localhost:3000/app", "http://localhost:3000/app"),
        ("example.com", "http://example.com"),
        ("  example.com/a?b  ", "http://example.com/a?b"),
        ("[::1]:8080", "http://[::1]:8080"),
        ("https://example.com/", "https://example.com/"),
        ("file:///etc/passwd", "file:///etc/passwd"),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("data:text/html,x", "data:text/html,x"),
    ],
)
def test_a_scheme_less_address_means_http(typed: str, meant: str) -> None:
    assert with_scheme(typed) == meant


async def test_a_private_refusal_names_the_guard_and_the_way_out() -> None:
    guard = Guard(resolver=static_resolver({"dev.example.com": ["10.1.2.3"]}))
    for url, origin in (
        ("http://127.0.0.1:8799/x", "http://127.0.0.1:8799"),
        ("https://dev.example.com/", "https://dev.example.com:443"),
        ("http://[::1]:5173/", "http://[::1]:5173"),
    ):
        with pytest.raises(BlockedURLError) as info:
            await guard.check(url)
        text = refusal(info.value)
        assert text.startswith("refused by the SSRF guard") and "on purpose" in text
        assert f'"{origin}"' in text and "browser.allowPrivateOrigins" in text
    with pytest.raises(BlockedURLError) as info:
        await guard.check("file:///etc/passwd")
    assert "allowPrivateOrigins" not in refusal(info.value)  # no way out for a bad scheme


def test_the_allowance_is_exact_origins_only() -> None:
    cfg = BrowserConfig(allowPrivateOrigins=["http://127.0.0.1:8799", "http://localhost:3000/"])
    assert cfg.private_origins() == {("127.0.0.1", 8799), ("localhost", 3000)}
    assert origin_of("https://dev.local") == ("dev.local", 443)
    for bad in ("http://127.0.0.1:8799/app", "ftp://x:1", "127.0.0.1:8799", "http://a@b:1"):
        with pytest.raises(ValidationError):
            BrowserConfig(allowPrivateOrigins=[bad])


def test_the_worker_inherits_no_secret() -> None:
    env = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "OPENAI_API_KEY": "sk-x",
        "GG_TELEGRAM_BOT_TOKEN": "1:x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "GITHUB_TOKEN": "x",
        "SSH_AUTH_SOCK": "/tmp/agent",
    }
    assert browser_env(env) == {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8"}


def test_chromium_sandboxes_unless_root_and_always_uses_the_proxy() -> None:
    assert use_sandbox(1000) and not use_sandbox(0)
    args = chromium_args(4321)
    assert "--proxy-server=http://127.0.0.1:4321" in args
    assert "--proxy-bypass-list=<-loopback>" in args and "--no-sandbox" not in args
