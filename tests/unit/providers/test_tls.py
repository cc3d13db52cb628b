"""The TLS context warmed at start-up is the one httpx would build, and clients use it."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
from pathlib import Path

import certifi
import httpx
import pytest

from ggd.providers import OpenAICompatProvider, tls


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No context warmed yet in this process, and no CA overrides from the environment."""
    monkeypatch.setattr(tls, "_future", None)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return monkeypatch


async def test_nothing_warmed_means_httpx_builds_its_own(fresh: pytest.MonkeyPatch) -> None:
    assert await tls.context() is None


async def test_the_warmed_context_matches_httpx_default(fresh: pytest.MonkeyPatch) -> None:
    tls.warm()
    ctx = await tls.context()
    assert ctx is not None
    expected = httpx.create_ssl_context()
    assert ctx.cert_store_stats() == expected.cert_store_stats()
    assert ctx.verify_mode == expected.verify_mode and ctx.check_hostname
    tls.warm()  # a second call builds nothing new
    assert await tls.context() is ctx


async def test_ssl_cert_file_is_honoured_like_httpx(
    fresh: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # One CA from certifi's bundle: a store of exactly one certificate shows which file loaded.
    bundle = Path(certifi.where()).read_text()
    one = bundle[bundle.index("-----BEGIN CERTIFICATE-----") :]
    one = one[: one.index("-----END CERTIFICATE-----") + len("-----END CERTIFICATE-----")]
    (tmp_path / "one.pem").write_text(one + "\n")
    fresh.setenv("SSL_CERT_FILE", str(tmp_path / "one.pem"))
    tls.warm()
    ctx = await tls.context()
    assert ctx is not None and ctx.cert_store_stats()["x509_ca"] == 1
    assert httpx.create_ssl_context().cert_store_stats() == ctx.cert_store_stats()


async def test_a_failed_build_falls_back_to_httpx(
    fresh: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fresh.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    tls.warm()
    assert await tls.context() is None


async def test_the_provider_client_uses_the_warmed_context(fresh: pytest.MonkeyPatch) -> None:
    tls.warm()
    ctx = await tls.context()
    provider = OpenAICompatProvider("https://example.invalid/v1", "k")
    try:
        client = await provider._http()
        pool = client._transport._pool  # type: ignore[attr-defined]
        assert pool._ssl_context is ctx
        assert await provider._http() is client
    finally:
        await provider.aclose()


def test_only_clients_that_may_speak_tls_need_the_bundle() -> None:
    assert tls.needs_tls("https://api.openai.com/v1", {})
    assert not tls.needs_tls("http://127.0.0.1:11434/v1", {})
    assert not tls.needs_tls("HTTP://localhost:1234/v1", {"HTTPS_PROXY": "https://proxy:3128"})
    assert tls.needs_tls("http://10.0.0.2/v1", {"HTTP_PROXY": "https://proxy:3128"})
    assert tls.needs_tls("http://10.0.0.2/v1", {"all_proxy": "HTTPS://proxy:3128"})
    assert not tls.needs_tls("http://10.0.0.2/v1", {"http_proxy": "http://proxy:3128"})


async def test_a_plain_http_client_parses_no_bundle_and_trusts_no_ca(
    fresh: pytest.MonkeyPatch,
) -> None:
    provider = OpenAICompatProvider("http://127.0.0.1:11434/v1", None, name="ollama")
    try:
        client = await provider._http()
        ctx = client._transport._pool._ssl_context  # type: ignore[attr-defined]
        assert ctx is tls.untrusting_context()
        assert ctx.cert_store_stats()["x509_ca"] == 0
        # Verification stays on: an unexpected TLS connection would fail, not go unverified.
        assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
        assert tls._future is None  # nothing was warmed for it
    finally:
        await provider.aclose()


async def test_an_https_provider_warms_when_it_is_made(fresh: pytest.MonkeyPatch) -> None:
    provider = OpenAICompatProvider("https://example.invalid/v1", "k")
    assert tls._future is not None
    try:
        client = await provider._http()
        assert client._transport._pool._ssl_context is await tls.context()  # type: ignore[attr-defined]
    finally:
        await provider.aclose()


@pytest.mark.parametrize(
    ("env", "config", "warmed"),
    [
        ({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "GG_MODEL": "m"}, None, False),
        ({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, '{"model": "openai:m"}', False),
        ({}, None, True),  # the implicit openai provider is https
        ({"OPENAI_BASE_URL": "https://api.example.com/v1"}, None, True),
        (
            {"OPENAI_BASE_URL": "http://h/v1"},
            '{"providers": {"x": {"baseUrl": "https://x"}}}',
            True,
        ),
        ({"OPENAI_BASE_URL": "http://h/v1"}, '{"providers": {"openrouter": {}}}', True),
        ({"OPENAI_BASE_URL": "http://h/v1", "GG_MODEL": "deepseek:chat"}, None, True),
        ({"OPENAI_BASE_URL": "http://h/v1", "HTTP_PROXY": "https://p:1"}, None, True),
    ],
)
def test_start_up_warms_unless_the_model_is_surely_plain_http(
    fresh: pytest.MonkeyPatch,
    tmp_path: Path,
    env: dict[str, str],
    config: str | None,
    warmed: bool,
) -> None:
    path = tmp_path / "config.json"
    if config is not None:
        path.write_text(config)
    tls.warm_early(path, env)
    assert (tls._future is not None) is warmed


def test_ggd_start_up_parses_no_bundle_for_a_plain_http_model(tmp_path: Path) -> None:
    # The daemon's import window, in a fresh process pointed at a local (plain http) model.
    code = (
        "import sys, threading\n"
        "from ggd.daemon.main import _import_app\n"
        "_import_app()\n"
        "from ggd.providers import tls\n"
        "names = [t.name for t in threading.enumerate()]\n"
        "print(tls._future is None, 'ggd-tls-warm' in names)\n"
    )
    env = {**os.environ, "GG_HOME": str(tmp_path), "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    env.pop("HTTP_PROXY", None), env.pop("http_proxy", None)
    env.pop("ALL_PROXY", None), env.pop("all_proxy", None)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "False"]
