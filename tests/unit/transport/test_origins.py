"""The one normal form of a browser origin (the WebSocket check and --allow-origin both use it)."""

from __future__ import annotations

import pytest

from ggd.transport.origins import normalize_origin, origin_of


@pytest.mark.parametrize(
    ("given", "normal"),
    [
        ("http://localhost:5173", "http://localhost:5173"),
        ("HTTP://LocalHost:5173/", "http://localhost:5173"),
        ("https://dev.example:443", "https://dev.example"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("vscode-webview://abc123", "vscode-webview://abc123"),
    ],
)
def test_origins_normalize_as_browsers_send_them(given: str, normal: str) -> None:
    assert normalize_origin(given) == normal


@pytest.mark.parametrize(
    "bad",
    [
        "null",
        "*",
        "",
        "localhost:5173",
        "http://x/path",
        "http://x?q",
        "http://u@x",
        "http://[",
        "http://x:99999",
    ],
)
def test_what_is_not_an_origin_is_none(bad: str) -> None:
    assert normalize_origin(bad) is None


def test_origin_of_brackets_ipv6_and_drops_default_ports() -> None:
    assert origin_of("http", "::1", 80) == "http://[::1]"
    assert origin_of("http", "127.0.0.1", 8765) == "http://127.0.0.1:8765"
