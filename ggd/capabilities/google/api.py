"""Gmail v1 and Calendar v3 calls over GoogleAuth: search, read, send, agenda, create."""

from __future__ import annotations

import asyncio
import base64
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

from .auth import GoogleAuth, GoogleError

HEADERS = ("From", "To", "Cc", "Subject", "Date")
BODY_LIMIT = 100_000


@dataclass
class Mail:
    """One message as gmail_read shows it."""

    id: str
    headers: dict[str, str]
    body: str
    attachments: list[dict[str, Any]] = field(default_factory=list)


def _headers(payload: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for h in payload.get("headers") or []:
        name = str(h.get("name", ""))
        for want in HEADERS:
            if name.lower() == want.lower() and want not in out:
                out[want] = str(h.get("value", ""))
    return out


def _decode(data: str) -> str:
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return raw.decode("utf-8", errors="replace")


def _walk(part: dict[str, Any]) -> list[dict[str, Any]]:
    out = [part]
    for child in part.get("parts") or []:
        out += _walk(child)
    return out


def _strip_html(text: str) -> str:
    text = re.sub(r"(?is)<(script|style)\b.*?</\1>", "", text)
    text = re.sub(r"(?i)<br\s*/?>|</p>|</div>", "\n", text)
    import html  # html.entities is a ~2,200-name table: read only when a mail is HTML-only

    return html.unescape(re.sub(r"<[^>]+>", "", text)).strip()


def parse_message(msg: dict[str, Any]) -> Mail:
    """Headers, the text body (text/plain, else de-tagged HTML) and the attachments listed."""
    payload = msg.get("payload") or {}
    parts = _walk(payload)
    plain = [p for p in parts if p.get("mimeType") == "text/plain" and not p.get("filename")]
    rich = [p for p in parts if p.get("mimeType") == "text/html" and not p.get("filename")]
    body = ""
    for p in plain or rich:
        data = (p.get("body") or {}).get("data")
        if data:
            body = _decode(str(data))
            body = body if plain else _strip_html(body)
            break
    attachments = [
        {
            "filename": str(p["filename"]),
            "mimeType": str(p.get("mimeType", "")),
            "size": int((p.get("body") or {}).get("size", 0)),
        }
        for p in parts
        if p.get("filename")
    ]
    return Mail(str(msg.get("id", "")), _headers(payload), body[:BODY_LIMIT], attachments)


class Gmail:
    """The three Gmail calls."""

    def __init__(self, auth: GoogleAuth) -> None:
        self.auth = auth
        self.base = auth.urls.gmail + "/users/me"

    async def search(self, query: str, limit: int) -> list[dict[str, str]]:
        """Matching messages, newest first: id plus From/Subject/Date."""
        resp = await self.auth.request(
            "GET", self.base + "/messages", params={"q": query, "maxResults": limit}
        )
        refs = (resp.json().get("messages") or [])[:limit]

        async def meta(ref: dict[str, Any]) -> dict[str, str]:
            got = await self.auth.request(
                "GET",
                f"{self.base}/messages/{ref['id']}",
                params={"format": "metadata", "metadataHeaders": ["From", "Subject", "Date"]},
            )
            m = got.json()
            return {"id": str(m.get("id")), "snippet": str(m.get("snippet", ""))} | _headers(
                m.get("payload") or {}
            )

        # The list call gives ids only; the headers come concurrently (limit <= 50), in list order.
        return list(await asyncio.gather(*(meta(r) for r in refs)))

    async def read(self, message_id: str) -> Mail:
        """One message in full."""
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", message_id):
            raise GoogleError("a Gmail message id is letters, digits, - and _ (from gmail_search)")
        resp = await self.auth.request(
            "GET", f"{self.base}/messages/{message_id}", params={"format": "full"}
        )
        return parse_message(resp.json())

    async def send(self, to: list[str], subject: str, body: str) -> str:
        """Send a plain-text message; its Gmail id."""
        resp = await self.auth.request(
            "POST", self.base + "/messages/send", json={"raw": raw_message(to, subject, body)}
        )
        return str(resp.json().get("id", ""))


def raw_message(to: list[str], subject: str, body: str) -> str:
    """The RFC 822 message, base64url as messages.send wants it."""
    msg = EmailMessage()
    msg["To"] = ", ".join(to)
    msg["Subject"] = subject
    msg.set_content(body)
    return base64.urlsafe_b64encode(msg.as_bytes()).decode().rstrip("=")


def parse_time(text: str, what: str) -> datetime:
    """An ISO 8601 date-time; a naive one is taken in the daemon's local time zone."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise GoogleError(f"{what} must be an ISO 8601 date-time like 2026-12-02T10:00") from None
    return when if when.tzinfo else when.astimezone()


class Calendar:
    """The two Calendar calls on the primary calendar."""

    def __init__(self, auth: GoogleAuth) -> None:
        self.auth = auth
        self.events = auth.urls.calendar + "/calendars/primary/events"

    async def agenda(self, days: int, now: datetime | None = None) -> list[dict[str, Any]]:
        """Events from now over the next `days` days, in start order."""
        lo = (now or datetime.now(UTC)).astimezone(UTC)
        hi = lo + timedelta(days=days)
        params = {
            "timeMin": lo.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "timeMax": hi.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "singleEvents": "true",
            "orderBy": "startTime",
            "maxResults": 100,
        }
        resp = await self.auth.request("GET", self.events, params=params)
        return list(resp.json().get("items") or [])

    async def create(
        self, title: str, start: datetime, end: datetime, attendees: list[str]
    ) -> dict[str, Any]:
        """Insert an event; invitations go out when there are attendees."""
        body: dict[str, Any] = {
            "summary": title,
            "start": {"dateTime": start.isoformat()},
            "end": {"dateTime": end.isoformat()},
        }
        if attendees:
            body["attendees"] = [{"email": a} for a in attendees]
        params = {"sendUpdates": "all" if attendees else "none"}
        resp = await self.auth.request("POST", self.events, params=params, json=body)
        return dict(resp.json())
