"""The token store and refresh logic against the fake Google: expiry, 401, locking, privacy."""

from __future__ import annotations

import asyncio
import json
import logging
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ggd.capabilities.google import store
from ggd.capabilities.google.api import Calendar, Gmail, parse_message
from ggd.capabilities.google.auth import GoogleAuth, GoogleError
from ggd.capabilities.google.config import GoogleConfig, resolve, short_scopes
from ggd.capabilities.google.store import Tokens
from tests.fakes.fake_google import FakeGoogle, gmail_message


@pytest.fixture
def fake() -> Iterator[FakeGoogle]:
    f = FakeGoogle()
    yield f
    f.close()


def connect(home: Path, fake: FakeGoogle, scopes: list[str], expires_in: float = 3600) -> Tokens:
    """Store what a finished OAuth flow would, as gg/connector.save does."""
    issued = fake.issue(scopes)
    tokens = Tokens(
        client_id=fake.client_id,
        access_token=issued["access_token"],
        refresh_token=issued["refresh_token"],
        expires_at=time.time() + expires_in,
        scopes=short_scopes(issued["scope"]),
    )
    store.save(home, tokens)
    return tokens


def auth_for(home: Path, fake: FakeGoogle) -> GoogleAuth:
    return GoogleAuth(home, resolve(GoogleConfig(), fake.env()))


def test_the_store_is_owner_only_and_round_trips(tmp_path: Path, fake: FakeGoogle) -> None:
    saved = connect(tmp_path, fake, ["gmail.readonly"])
    assert stat.S_IMODE(store.path(tmp_path).stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "connectors").stat().st_mode) == 0o700
    loaded = store.load(tmp_path)
    assert loaded is not None and loaded.access_token == saved.access_token
    assert loaded.scopes == ["gmail.readonly"]
    assert saved.access_token not in repr(loaded) and saved.refresh_token not in repr(loaded)
    assert store.remove(tmp_path) and store.load(tmp_path) is None
    assert not store.remove(tmp_path)


def test_a_corrupt_store_says_what_to_do(tmp_path: Path) -> None:
    store.folder(tmp_path)
    store.path(tmp_path).write_text("{not json")
    with pytest.raises(store.StoreError, match="gg connect google"):
        store.load(tmp_path)


async def test_an_expiring_token_is_refreshed_before_the_call(
    tmp_path: Path, fake: FakeGoogle, caplog: pytest.LogCaptureFixture
) -> None:
    old = connect(tmp_path, fake, ["gmail.readonly"], expires_in=30)  # inside the early window
    fake.messages["m1"] = gmail_message("m1", "ann@example.com", "me@example.com", "Hi", "hello")
    auth = auth_for(tmp_path, fake)
    caplog.set_level(logging.DEBUG)
    found = await Gmail(auth).search("hello", 5)
    assert [m["id"] for m in found] == ["m1"] and found[0]["From"] == "ann@example.com"
    assert fake.grants["refresh_token"] == 1 and fake.api_401s == 0
    new = store.load(tmp_path)
    assert new is not None and new.access_token != old.access_token
    assert new.refresh_token == old.refresh_token  # Google kept it; so do we
    assert new.expires_at > time.time() + 3000
    form = next(r["form"] for r in fake.requests if r["path"] == "/token")
    assert form["grant_type"] == "refresh_token" and form["client_id"] == fake.client_id
    text = caplog.text + json.dumps([r.getMessage() for r in caplog.records])
    assert old.refresh_token not in text and new.access_token not in text


async def test_a_401_refreshes_once_and_retries(tmp_path: Path, fake: FakeGoogle) -> None:
    connect(tmp_path, fake, ["calendar.events"])
    fake.revoke_access()  # the stored token still looks fresh, but Google rejects it
    items = await Calendar(auth_for(tmp_path, fake)).agenda(7)
    assert items == []
    assert fake.api_401s == 1 and fake.grants["refresh_token"] == 1


async def test_a_second_401_is_an_error_not_a_loop(tmp_path: Path, fake: FakeGoogle) -> None:
    connect(tmp_path, fake, ["calendar.events"])
    fake.revoke_access()
    fake.token_lifetime = -10  # every refreshed token is already dead on the server
    with pytest.raises(GoogleError, match="gg connect google"):
        await Calendar(auth_for(tmp_path, fake)).agenda(7)
    assert fake.api_401s == 2 and fake.grants["refresh_token"] == 1


async def test_a_revoked_refresh_token_says_reconnect(tmp_path: Path, fake: FakeGoogle) -> None:
    connect(tmp_path, fake, ["gmail.readonly"], expires_in=0)
    fake.refresh_tokens.clear()
    with pytest.raises(GoogleError, match=r"revoked or expired.*gg connect google"):
        await Gmail(auth_for(tmp_path, fake)).search("x", 1)


async def test_concurrent_callers_share_one_refresh(tmp_path: Path, fake: FakeGoogle) -> None:
    connect(tmp_path, fake, ["gmail.readonly"], expires_in=0)
    # Two daemons' worth of auth objects on one home: the file lock plus the re-read make the
    # loser reuse the winner's token instead of refreshing again.
    a, b = auth_for(tmp_path, fake), auth_for(tmp_path, fake)
    got = await asyncio.gather(*(x.tokens() for x in (a, b, a, b)))
    assert len({t.access_token for t in got}) == 1
    assert fake.grants["refresh_token"] == 1


async def test_not_connected_is_a_clear_error(tmp_path: Path, fake: FakeGoogle) -> None:
    with pytest.raises(GoogleError, match="not connected; run `gg connect google`"):
        await Gmail(auth_for(tmp_path, fake)).search("x", 1)


def test_a_message_is_parsed_to_headers_text_and_attachments() -> None:
    msg = gmail_message(
        "m9", "bob@example.com", "me@example.com", "Report", "see attached", "q3.pdf"
    )
    mail = parse_message(msg)
    assert mail.headers["Subject"] == "Report" and mail.body == "see attached"
    assert mail.attachments == [
        {"filename": "q3.pdf", "mimeType": "application/pdf", "size": 48213}
    ]


def test_html_only_mail_is_de_tagged() -> None:
    import base64

    data = base64.urlsafe_b64encode(b"<p>Hello <b>there</b></p><script>x()</script>").decode()
    msg = {"id": "h", "payload": {"mimeType": "text/html", "body": {"data": data}, "headers": []}}
    assert parse_message(msg).body == "Hello there"
