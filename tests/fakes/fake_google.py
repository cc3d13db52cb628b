"""A fake Google on 127.0.0.1: OAuth 2.0 (PKCE S256 checked), Gmail v1 and Calendar v3 routes.

- GET  /o/oauth2/v2/auth: "the user consents" at once: 302 to redirect_uri with code and state;
  the code remembers the code_challenge, redirect_uri, client_id and scopes asked for.
- POST /token: authorization_code (checks base64url(sha256(code_verifier)) == code_challenge,
  redirect_uri and client_id, single-use code) and refresh_token grants; access tokens live
  `token_lifetime` seconds, and `revoke_access()` makes the current ones answer 401.
- Gmail: messages.list (q, maxResults), messages.get (format=full|metadata), messages.send
  (raw RFC 822, base64url) and users.getProfile. Calendar: events.list and events.insert on
  `primary`. Every API call needs a live Bearer token; every request is recorded.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from datetime import datetime
from email import message_from_bytes
from email.policy import default as email_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

SCOPE = "https://www.googleapis.com/auth/"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def gmail_message(
    mid: str, sender: str, to: str, subject: str, body: str, attachment: str | None = None
) -> dict[str, Any]:
    """A Gmail API message resource (format=full) with a text/plain part and maybe a file."""
    headers = [
        {"name": "From", "value": sender},
        {"name": "To", "value": to},
        {"name": "Subject", "value": subject},
        {"name": "Date", "value": "Tue, 01 Dec 2026 09:00:00 +0000"},
    ]
    parts: list[dict[str, Any]] = [
        {
            "partId": "0",
            "mimeType": "text/plain",
            "filename": "",
            "headers": [{"name": "Content-Type", "value": "text/plain; charset=UTF-8"}],
            "body": {"size": len(body), "data": _b64url(body.encode())},
        }
    ]
    if attachment:
        parts.append(
            {
                "partId": "1",
                "mimeType": "application/pdf",
                "filename": attachment,
                "body": {"attachmentId": "att-" + mid, "size": 48213},
            }
        )
    return {
        "id": mid,
        "threadId": "t-" + mid,
        "labelIds": ["INBOX"],
        "snippet": body[:80],
        "payload": {"mimeType": "multipart/mixed", "headers": headers, "parts": parts},
    }


class FakeGoogle:
    """Serves the routes from a background thread."""

    def __init__(self, client_id: str = "test-client.apps.googleusercontent.com") -> None:
        self.client_id = client_id
        self.requests: list[dict[str, Any]] = []
        self.codes: dict[str, dict[str, Any]] = {}
        self.access: dict[str, float] = {}  # access token -> expiry
        self.refresh_tokens: set[str] = set()
        self.token_lifetime = 3600.0
        self.grant: list[str] | None = None  # scopes to grant instead of those asked for
        self.messages: dict[str, dict[str, Any]] = {}
        self.sent: list[Any] = []
        self.events: list[dict[str, Any]] = []
        self.grants: dict[str, int] = {"authorization_code": 0, "refresh_token": 0}
        self.api_401s = 0
        self._lock = threading.Lock()
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer._handle(self, "GET", b"")

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                outer._handle(self, "POST", self.rfile.read(n))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def env(self) -> dict[str, str]:
        """The GG_GOOGLE_* variables that point a daemon or the CLI here."""
        return {
            "GG_GOOGLE_AUTH_URL": self.base_url + "/o/oauth2/v2/auth",
            "GG_GOOGLE_TOKEN_URL": self.base_url + "/token",
            "GG_GOOGLE_GMAIL_URL": self.base_url + "/gmail/v1",
            "GG_GOOGLE_CALENDAR_URL": self.base_url + "/calendar/v3",
            "GG_GOOGLE_CLIENT_ID": self.client_id,
        }

    def issue(self, scopes: list[str]) -> dict[str, Any]:
        """A token response as Google sends it (used by the flow and by tests that pre-connect)."""
        access, refresh = "ya29." + secrets.token_urlsafe(16), "1//" + secrets.token_urlsafe(16)
        with self._lock:
            self.access[access] = time.time() + self.token_lifetime
            self.refresh_tokens.add(refresh)
        return {
            "access_token": access,
            "refresh_token": refresh,
            "expires_in": int(self.token_lifetime),
            "scope": " ".join(SCOPE + s for s in scopes),
            "token_type": "Bearer",
        }

    def revoke_access(self) -> None:
        """Every access token issued so far answers 401 (a server-side revocation)."""
        with self._lock:
            self.access.clear()

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- routing -------------------------------------------------------------------------

    def _handle(self, h: BaseHTTPRequestHandler, method: str, body: bytes) -> None:
        url = urlsplit(h.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        rec: dict[str, Any] = {
            "method": method,
            "path": url.path,
            "query": query,
            "headers": dict(h.headers),
        }
        self.requests.append(rec)
        if url.path == "/o/oauth2/v2/auth":
            return self._authorize(h, query)
        if url.path == "/token":
            form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
            rec["form"] = form
            return self._token(h, form)
        auth = h.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ")
        with self._lock:
            live = auth.startswith("Bearer ") and self.access.get(token, 0) > time.time()
        if not live:
            self.api_401s += 1
            return _send(h, 401, {"error": {"code": 401, "message": "Invalid Credentials"}})
        if body:
            rec["json"] = json.loads(body)
        return self._api(h, method, url.path, query, rec.get("json"))

    def _authorize(self, h: BaseHTTPRequestHandler, q: dict[str, str]) -> None:
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256":
            return _send(h, 400, {"error": "invalid_request"})
        if q.get("client_id") != self.client_id or not q.get("code_challenge"):
            return _send(h, 400, {"error": "invalid_client"})
        code = "4/" + secrets.token_urlsafe(12)
        asked = [s.removeprefix(SCOPE) for s in q.get("scope", "").split()]
        self.codes[code] = {
            "challenge": q["code_challenge"],
            "redirect_uri": q["redirect_uri"],
            "scopes": self.grant if self.grant is not None else asked,
        }
        target = q["redirect_uri"] + "?" + urlencode({"code": code, "state": q.get("state", "")})
        h.send_response(302)
        h.send_header("Location", target)
        h.send_header("Content-Length", "0")
        h.end_headers()

    def _token(self, h: BaseHTTPRequestHandler, form: dict[str, str]) -> None:
        grant = form.get("grant_type", "")
        if form.get("client_id") != self.client_id:
            return _send(h, 401, {"error": "invalid_client"})
        if grant == "authorization_code":
            entry = self.codes.pop(form.get("code", ""), None)  # single use
            verifier = form.get("code_verifier", "")
            if entry is None or entry["redirect_uri"] != form.get("redirect_uri"):
                return _send(h, 400, {"error": "invalid_grant"})
            if _b64url(hashlib.sha256(verifier.encode()).digest()) != entry["challenge"]:
                return _send(h, 400, {"error": "invalid_grant", "error_description": "verifier"})
            self.grants[grant] += 1
            return _send(h, 200, self.issue(entry["scopes"]))
        if grant == "refresh_token":
            if form.get("refresh_token") not in self.refresh_tokens:
                return _send(h, 400, {"error": "invalid_grant"})
            self.grants[grant] += 1
            access = "ya29." + secrets.token_urlsafe(16)
            with self._lock:
                self.access[access] = time.time() + self.token_lifetime
            return _send(
                h,
                200,
                {
                    "access_token": access,
                    "expires_in": int(self.token_lifetime),
                    "token_type": "Bearer",
                },
            )
        return _send(h, 400, {"error": "unsupported_grant_type"})

    def _api(
        self, h: BaseHTTPRequestHandler, method: str, path: str, q: dict[str, str], body: Any
    ) -> None:
        gm = "/gmail/v1/users/me/"
        if method == "GET" and path == gm + "messages":
            words = q.get("q", "").lower().split()
            hits = [
                m for m in self.messages.values() if all(w in json.dumps(m).lower() for w in words)
            ][: int(q.get("maxResults", "100"))]
            return _send(
                h,
                200,
                {
                    "messages": [{"id": m["id"], "threadId": m["threadId"]} for m in hits],
                    "resultSizeEstimate": len(hits),
                },
            )
        if method == "GET" and path.startswith(gm + "messages/"):
            m = self.messages.get(path.rsplit("/", 1)[1])
            if m is None:
                return _send(
                    h, 404, {"error": {"code": 404, "message": "Requested entity was not found."}}
                )
            if q.get("format") == "metadata":
                m = {**m, "payload": {"headers": m["payload"]["headers"]}}
            return _send(h, 200, m)
        if method == "POST" and path == gm + "messages/send":
            raw = base64.urlsafe_b64decode(body["raw"] + "=" * (-len(body["raw"]) % 4))
            self.sent.append(message_from_bytes(raw, policy=email_policy))
            return _send(
                h, 200, {"id": f"sent{len(self.sent)}", "threadId": "t", "labelIds": ["SENT"]}
            )
        if method == "GET" and path == gm + "profile":
            return _send(
                h, 200, {"emailAddress": "me@example.com", "messagesTotal": len(self.messages)}
            )
        cal = "/calendar/v3/calendars/primary/events"
        if method == "GET" and path == cal:
            lo, hi = _when(q.get("timeMin", "0001-01-01T00:00:00Z")), _when(q["timeMax"])
            items = sorted(
                (e for e in self.events if lo <= _when(e["start"]["dateTime"]) < hi),
                key=lambda e: _when(e["start"]["dateTime"]),
            )
            return _send(h, 200, {"kind": "calendar#events", "items": items})
        if method == "POST" and path == cal:
            event = {**body, "id": f"ev{len(self.events) + 1}", "status": "confirmed"}
            event["htmlLink"] = "https://calendar.example/" + event["id"]
            self.events.append(event)
            return _send(h, 200, event)
        return _send(h, 404, {"error": {"code": 404, "message": "no route"}})


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _send(h: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
    data = json.dumps(obj).encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)
