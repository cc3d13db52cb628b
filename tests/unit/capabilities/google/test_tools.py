"""The Gmail/Calendar tools against the fake Google: arguments, approvals, what goes on the wire."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ggd.app import SessionContext
from ggd.capabilities.google import store
from ggd.capabilities.google.config import GoogleConfig, short_scopes
from ggd.capabilities.google.provider import GoogleProvider, tool_names
from ggd.capabilities.google.store import Tokens
from ggd.tools import ToolContext, ToolError
from tests.fakes.fake_google import FakeGoogle
from tests.unit.capabilities.google.test_auth import connect


@pytest.fixture
def fake() -> Iterator[FakeGoogle]:
    f = FakeGoogle()
    yield f
    f.close()


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path, log_dir=tmp_path)


async def _tools(home: Path, fake: FakeGoogle) -> dict[str, object]:
    provider = GoogleProvider(home, GoogleConfig(), fake.env())
    contribution = await provider.build(SessionContext(home=home, workspace=None))  # type: ignore[arg-type]
    return {t.name: t for t in contribution.tools}


def test_scopes_map_to_tools() -> None:
    assert tool_names(["gmail.readonly"]) == ["gmail_search", "gmail_read"]
    assert tool_names(["calendar.readonly", "calendar.events"]) == [
        "calendar_agenda",
        "calendar_create",
    ]
    assert short_scopes("openid https://www.googleapis.com/auth/gmail.send") == ["gmail.send"]


async def test_only_granted_scopes_build_tools(tmp_path: Path, fake: FakeGoogle) -> None:
    provider = GoogleProvider(tmp_path, GoogleConfig(), fake.env())
    assert provider.available(None) is not None  # type: ignore[arg-type]
    assert provider.capabilities == ()
    connect(tmp_path, fake, ["gmail.send", "calendar.events"])
    assert provider.available(None) is None  # type: ignore[arg-type]
    assert provider.capabilities == ("google.gmail.send", "google.calendar.events")
    tools = await _tools(tmp_path, fake)
    assert set(tools) == {"gmail_send", "calendar_agenda", "calendar_create"}


async def test_a_corrupt_store_degrades_instead_of_hiding(tmp_path: Path, fake: FakeGoogle) -> None:
    store.folder(tmp_path)
    store.path(tmp_path).write_text("[]")
    provider = GoogleProvider(tmp_path, GoogleConfig(), fake.env())
    assert provider.available(None) is None  # type: ignore[arg-type]
    with pytest.raises(store.StoreError):
        await _tools(tmp_path, fake)


async def test_calendar_create_asks_and_sends_what_it_showed(
    tmp_path: Path, fake: FakeGoogle
) -> None:
    connect(tmp_path, fake, ["calendar.events"])
    tool = (await _tools(tmp_path, fake))["calendar_create"]
    args = {
        "title": "Design review",
        "start": "2099-03-02T10:00:00+01:00",
        "end": "2099-03-02T11:00:00+01:00",
        "attendees": ["ann@example.com"],
    }
    info = tool.describe(args, _ctx(tmp_path))  # type: ignore[attr-defined]
    assert (
        info.needs_approval and "ann@example.com" in info.details and "invitation" in info.details
    )
    await tool.precheck(args, _ctx(tmp_path))  # type: ignore[attr-defined]
    res = await tool.run(args, _ctx(tmp_path))  # type: ignore[attr-defined]
    assert "Design review" in res.output
    sent = fake.events[0]
    assert sent["summary"] == "Design review" and sent["attendees"] == [
        {"email": "ann@example.com"}
    ]
    assert sent["start"]["dateTime"] == "2099-03-02T10:00:00+01:00"
    post = next(r for r in fake.requests if r["method"] == "POST" and "events" in r["path"])
    assert post["query"]["sendUpdates"] == "all"
    agenda = (await _tools(tmp_path, fake))["calendar_agenda"]
    out = (await agenda.run({"days": 60}, _ctx(tmp_path))).output  # type: ignore[attr-defined]
    assert "no events" in out  # 2099 is beyond 60 days
    fake.events[0]["start"]["dateTime"] = time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600)
    )
    out = (await agenda.run({"days": 1}, _ctx(tmp_path))).output  # type: ignore[attr-defined]
    assert "Design review" in out and "ann@example.com" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"title": "x", "start": "tomorrow", "end": "2099-01-01T10:00"}, "ISO 8601"),
        ({"title": "x", "start": "2099-01-01T10:00", "end": "2099-01-01T09:00"}, "end after"),
        ({"title": " ", "start": "2099-01-01T10:00", "end": "2099-01-01T11:00"}, "empty"),
        (
            {
                "title": "x",
                "start": "2099-01-01T10:00",
                "end": "2099-01-01T11:00",
                "attendees": ["bob"],
            },
            "not an email",
        ),
    ],
)
async def test_calendar_create_refuses_bad_arguments_before_asking(
    tmp_path: Path, fake: FakeGoogle, args: dict[str, object], message: str
) -> None:
    connect(tmp_path, fake, ["calendar.events"])
    tool = (await _tools(tmp_path, fake))["calendar_create"]
    with pytest.raises(ToolError, match=message):
        await tool.precheck(args, _ctx(tmp_path))  # type: ignore[attr-defined]
    assert fake.events == []


async def test_gmail_send_refuses_a_bad_address_and_header_injection(
    tmp_path: Path, fake: FakeGoogle
) -> None:
    connect(tmp_path, fake, ["gmail.send"])
    tool = (await _tools(tmp_path, fake))["gmail_send"]
    with pytest.raises(ToolError, match="not an email"):
        await tool.precheck({"to": "bob", "subject": "s", "body": "b"}, _ctx(tmp_path))  # type: ignore[attr-defined]
    bad = {"to": "bob@example.com", "subject": "hi\r\nBcc: eve@example.com", "body": "b"}
    with pytest.raises(ToolError, match="one line"):
        await tool.run(bad, _ctx(tmp_path))  # type: ignore[attr-defined]
    assert fake.sent == []


async def test_gmail_read_refuses_a_path_like_id(tmp_path: Path, fake: FakeGoogle) -> None:
    connect(tmp_path, fake, ["gmail.readonly"])
    tool = (await _tools(tmp_path, fake))["gmail_read"]
    with pytest.raises(ToolError, match="message id"):
        await tool.run({"id": "../../profile"}, _ctx(tmp_path))  # type: ignore[attr-defined]


def test_tokens_repr_hides_secrets() -> None:
    t = Tokens("cid", "ya29.secret", "1//refresh", 0.0, [], client_secret="shh")
    assert "secret" not in repr(t).replace("client_secret", "") and "refresh'" not in repr(t)


def test_env_overrides_config_and_config_overrides_defaults() -> None:
    from ggd.capabilities.google.config import resolve

    cfg = GoogleConfig(gmailUrl="http://127.0.0.1:9/gmail/v1/", clientId="from-config")
    urls = resolve(cfg, {"GG_GOOGLE_TOKEN_URL": "http://127.0.0.1:8/token"})
    assert urls.gmail == "http://127.0.0.1:9/gmail/v1" and urls.client_id == "from-config"
    assert urls.token == "http://127.0.0.1:8/token"
    assert urls.auth == "https://accounts.google.com/o/oauth2/v2/auth"
    with pytest.raises(ValueError):
        GoogleConfig.model_validate({"gmailURL": "x"})


async def test_save_and_remove_are_refused_over_a_remote_connection(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from ggd.app import HandlerContext
    from ggd.capabilities.google import handlers
    from ggd.capabilities.google.protocol import ConnectorParams, ConnectorSaveParams
    from ggd.protocol import errors as E

    ctx = HandlerContext(
        services=SimpleNamespace(home=tmp_path),  # type: ignore[arg-type]
        workspace=None,  # type: ignore[arg-type]
        config=None,
        notify=lambda *_: True,
        remote=True,
    )
    params = ConnectorSaveParams(
        connector="google",
        client_id="c",
        access_token="a",
        refresh_token="r",
        expires_in=60,
        scope="https://www.googleapis.com/auth/gmail.readonly",
    )
    with pytest.raises(E.CapabilityUnavailableError, match="remote"):
        await handlers.connector_save(ctx, params)
    with pytest.raises(E.CapabilityUnavailableError, match="remote"):
        await handlers.connector_remove(ctx, ConnectorParams(connector="google"))
    assert not store.path(tmp_path).exists()
    ctx.remote = False
    info = await handlers.connector_save(ctx, params)
    assert info.tools == ["gmail_search", "gmail_read"] and store.load(tmp_path) is not None
    with pytest.raises(E.InvalidParamsError, match="none of the scopes"):
        await handlers.connector_save(ctx, params.model_copy(update={"scope": "openid email"}))


async def test_gmail_search_lists_in_gmail_order_within_the_limit(
    tmp_path: Path, fake: FakeGoogle
) -> None:
    from tests.fakes.fake_google import gmail_message

    for i in range(4):
        fake.messages[f"m{i}"] = gmail_message(
            f"m{i}", f"p{i}@example.com", "me@x.io", f"invoice {i}", "due"
        )
    connect(tmp_path, fake, ["gmail.readonly"])
    tool = (await _tools(tmp_path, fake))["gmail_search"]
    res = await tool.run({"query": "invoice", "limit": 3}, _ctx(tmp_path))  # type: ignore[attr-defined]
    assert res.details == {"ids": ["m0", "m1", "m2"]}
    assert res.output.splitlines()[1].startswith("m1") and "p1@example.com" in res.output
    with pytest.raises(ToolError, match="from 1 to 50"):
        await tool.run({"query": "x", "limit": 500}, _ctx(tmp_path))  # type: ignore[attr-defined]
