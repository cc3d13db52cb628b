"""OAuth 2.0 authorization code with PKCE (S256) for `gg connect`: stdlib only.

The CLI runs the browser part (a loopback listener on a random 127.0.0.1 port, or a pasted
redirect URL on a headless machine) and the token exchange, then hands the tokens to the daemon;
it never writes GG_HOME itself.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any


class OAuthError(Exception):
    """The flow failed in a way the user can act on (the message says how)."""


def pkce() -> tuple[str, str]:
    """(code_verifier, S256 code_challenge): 64 random bytes, base64url (RFC 7636)."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(64)).decode().rstrip("=")
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def authorize_url(
    base: str, client_id: str, redirect_uri: str, scopes: list[str], state: str, challenge: str
) -> str:
    """The consent page URL; offline access + consent so Google sends a refresh token."""
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": " ".join(scopes),
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "access_type": "offline",
        "prompt": "consent",
    }
    return base + ("&" if "?" in base else "?") + urllib.parse.urlencode(query)


def parse_redirect(text: str) -> dict[str, str]:
    """code/state/error from a pasted redirect URL (or its query, or a bare code)."""
    text = text.strip()
    if not text:
        raise OAuthError("nothing pasted; paste the whole address from the browser's bar")
    query = urllib.parse.urlsplit(text).query if "://" in text else text.lstrip("?")
    if "=" not in query:
        return {"code": text}
    return {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}


def check(result: dict[str, str], state: str) -> str:
    """The authorization code, after the error and state checks."""
    if result.get("error"):
        raise OAuthError(f"Google refused the authorization ({result['error']}); run it again")
    if "state" in result and not secrets.compare_digest(result["state"], state):
        raise OAuthError("the redirect's state does not match this attempt; run it again")
    if "state" not in result and len(result) > 1:
        raise OAuthError("the redirect has no state; paste the whole address")
    code = result.get("code", "")
    if not code:
        raise OAuthError("the redirect carries no authorization code; run it again")
    return code


class Loopback:
    """A one-shot listener on 127.0.0.1:<random> that catches the redirect."""

    def __init__(self) -> None:
        self.result: dict[str, str] | None = None
        self._got = threading.Event()
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
                if url.path != "/" or not ({"code", "error"} & set(query)):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                ok = "code" in query
                text = (
                    "gg is connected to Google; you can close this tab."
                    if ok
                    else f"Authorization refused: {query.get('error', '')}"
                )
                page = f"<!doctype html><title>gg</title><p>{html.escape(text)}</p>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)
                if outer.result is None:
                    outer.result = query
                    outer._got.set()

        self.httpd = HTTPServer(("127.0.0.1", 0), H)
        self.redirect_uri = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def wait(self, timeout: float) -> dict[str, str]:
        """The redirect's query; OAuthError after `timeout` seconds."""
        if not self._got.wait(timeout):
            raise OAuthError(
                f"no answer from the browser within {int(timeout)} s; run it again "
                "(or use --manual on a machine without a browser)"
            )
        assert self.result is not None
        return self.result

    def close(self) -> None:
        """Stop listening."""
        self.httpd.shutdown()
        self.httpd.server_close()


def exchange(token_url: str, form: dict[str, str], timeout: float = 30) -> dict[str, Any]:
    """POST the form to the token endpoint; its JSON, or OAuthError with Google's reason."""
    data = urllib.parse.urlencode(form).encode()
    req = urllib.request.Request(
        token_url,
        data=data,
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            err = json.loads(exc.read() or b"{}")
        except ValueError:
            err = {}
        reason = err.get("error_description") or err.get("error") or f"HTTP {exc.code}"
        raise OAuthError(f"the token exchange was refused ({reason}); run it again") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise OAuthError(f"the token endpoint is unreachable ({type(exc).__name__})") from None
    if not isinstance(body, dict) or "access_token" not in body:
        raise OAuthError("the token endpoint answered without an access token")
    if not body.get("refresh_token"):
        raise OAuthError(
            "Google sent no refresh token; remove gg under myaccount.google.com/permissions "
            "and run it again"
        )
    return body


__all__ = ["Loopback", "OAuthError", "authorize_url", "check", "exchange", "parse_redirect", "pkce"]
