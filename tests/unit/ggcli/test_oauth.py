"""The CLI's stdlib OAuth helpers: PKCE values, the consent URL, redirect parsing and checks."""

from __future__ import annotations

import base64
import hashlib
import urllib.error
import urllib.parse
import urllib.request

import pytest

from ggcli.oauth import Loopback, OAuthError, authorize_url, check, parse_redirect, pkce


def test_pkce_is_s256_of_a_long_random_verifier() -> None:
    verifier, challenge = pkce()
    assert 43 <= len(verifier) <= 128 and set(verifier) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
    want = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    assert challenge == want.decode() and pkce()[0] != verifier


def test_the_consent_url_carries_everything_google_needs() -> None:
    url = authorize_url(
        "https://auth.example/o", "cid", "http://127.0.0.1:5/", ["a", "b"], "st", "ch"
    )
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    assert q == {
        "response_type": "code",
        "client_id": "cid",
        "redirect_uri": "http://127.0.0.1:5/",
        "scope": "a b",
        "state": "st",
        "code_challenge": "ch",
        "code_challenge_method": "S256",
        "access_type": "offline",
        "prompt": "consent",
    }


def test_a_pasted_redirect_is_checked() -> None:
    pasted = parse_redirect(" http://127.0.0.1:9/?state=s1&code=4%2Fabc&scope=x \n")
    assert check(pasted, "s1") == "4/abc"
    with pytest.raises(OAuthError, match="state does not match"):
        check(pasted, "s2")
    with pytest.raises(OAuthError, match="refused the authorization \\(access_denied\\)"):
        check(parse_redirect("http://127.0.0.1:9/?error=access_denied&state=s1"), "s1")
    with pytest.raises(OAuthError, match="nothing pasted"):
        parse_redirect("   ")
    assert check(parse_redirect("4/just-the-code"), "s1") == "4/just-the-code"


def test_the_loopback_takes_the_first_redirect_and_ignores_noise() -> None:
    loop = Loopback()
    try:
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(loop.redirect_uri + "favicon.ico", timeout=5)
        with urllib.request.urlopen(loop.redirect_uri + "?code=c1&state=s", timeout=5) as r:
            assert b"connected" in r.read()
        urllib.request.urlopen(loop.redirect_uri + "?code=c2&state=s", timeout=5).close()
        assert loop.wait(5) == {"code": "c1", "state": "s"}
    finally:
        loop.close()


def test_the_loopback_times_out_with_advice() -> None:
    loop = Loopback()
    try:
        with pytest.raises(OAuthError, match="--manual"):
            loop.wait(0.05)
    finally:
        loop.close()


def test_the_fake_google_really_checks_the_verifier() -> None:
    from ggcli.oauth import exchange
    from tests.fakes.fake_google import FakeGoogle

    fake = FakeGoogle()
    try:
        verifier, challenge = pkce()
        loop = Loopback()
        try:
            url = authorize_url(
                fake.env()["GG_GOOGLE_AUTH_URL"],
                fake.client_id,
                loop.redirect_uri,
                [],
                "s",
                challenge,
            )
            urllib.request.urlopen(url, timeout=5).close()
            code = check(loop.wait(5), "s")
        finally:
            loop.close()
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": loop.redirect_uri,
            "client_id": fake.client_id,
        }
        with pytest.raises(OAuthError, match="refused \\(verifier\\)"):
            exchange(fake.env()["GG_GOOGLE_TOKEN_URL"], {**form, "code_verifier": pkce()[0]})
        assert fake.grants["authorization_code"] == 0  # and the code is spent: single use
        with pytest.raises(OAuthError, match="invalid_grant"):
            exchange(fake.env()["GG_GOOGLE_TOKEN_URL"], {**form, "code_verifier": verifier})
    finally:
        fake.close()
