"""The TLS context warmed at start-up is the one httpx would build, and clients use it."""

from __future__ import annotations

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
