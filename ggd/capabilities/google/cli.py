"""`gg connect google|list|status|remove`: connect gg to outside accounts (Google so far).

(The module is `connectors`, not `connect`: a submodule named `connect` would shadow the
package's `connect()` helper every command imports.)

`gg connect google` runs OAuth in the CLI (ggcli.oauth: PKCE, state, a loopback redirect or a
pasted one) and hands the tokens to the daemon (gg/connector.save): only ggd writes GG_HOME.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import sys
import time
import webbrowser
from typing import Any

NAMES = ("connect",)
SCOPES = ("gmail.readonly", "gmail.send", "calendar.events")
SCOPE_PREFIX = "https://www.googleapis.com/auth/"


def register(sub: Any) -> None:
    """Add `gg connect ...`."""
    from ggcli.commands import add_connection_flags

    p = sub.add_parser("connect", help="connect gg to Google (Gmail, Calendar)")
    csub = p.add_subparsers(dest="action", required=True)
    g = csub.add_parser("google", help="authorize gg for Gmail and Calendar (OAuth, PKCE)")
    g.add_argument("--client-id", help="OAuth client id (default: config google.clientId)")
    g.add_argument(
        "--manual", action="store_true", help="no local browser: paste the redirect address"
    )
    g.add_argument(
        "--scope",
        action="append",
        choices=SCOPES,
        help="ask only for this scope (repeatable; default: all three)",
    )
    g.add_argument("--no-browser", action="store_true", help="print the address, do not open it")
    g.add_argument("--timeout", type=float, default=300, help="seconds to wait for the browser")
    ls = csub.add_parser("list", help="connectors and what they enable")
    ls.add_argument("--json", action="store_true")
    st = csub.add_parser("status", help="one connector's state")
    st.add_argument("connector", nargs="?", default="google", choices=("google",))
    st.add_argument("--check", action="store_true", help="call Google now")
    st.add_argument("--json", action="store_true")
    rm = csub.add_parser("remove", help="forget a connector's tokens")
    rm.add_argument("connector", choices=("google",))
    for q in csub.choices.values():
        add_connection_flags(q)


def _request(args: argparse.Namespace, method: str, params: dict[str, Any]) -> Any:
    from ggcli.commands import connect

    client = connect(args)
    try:
        return client.request(method, params, timeout=60)
    finally:
        client.close()


def _when(epoch: float | None) -> str:
    if not epoch:
        return "?"
    left = int(epoch - time.time())
    return f"in {left // 60} min" if left > 0 else "expired (refreshed on next use)"


def _print(info: dict[str, Any]) -> None:
    if not info.get("connected"):
        print(f"{info['name']}: not connected (gg connect {info['name']})")
    else:
        who = f" as {info['account']}" if info.get("account") else ""
        print(f"{info['name']}: connected{who}; scopes: {', '.join(info.get('scopes') or [])}")
        print(f"  tools: {', '.join(info.get('tools') or []) or '(none)'}")
        print(f"  access token expires {_when(info.get('expiresAt'))}")
    if info.get("error"):
        print(f"  error: {info['error']}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _google(args: argparse.Namespace) -> int:
    from ggcli.oauth import (
        Loopback,
        OAuthError,
        authorize_url,
        check,
        exchange,
        parse_redirect,
        pkce,
    )

    status = _request(args, "gg/connector.status", {"connector": "google"})
    client_id = args.client_id or status.get("clientId")
    if not client_id:
        sys.stderr.write(
            "gg: error: no OAuth client id: create a Desktop app client at "
            "console.cloud.google.com/apis/credentials, then pass --client-id ID "
            "(or set google.clientId in config.json, or GG_GOOGLE_CLIENT_ID)\n"
        )
        return 2
    # Google's desktop clients come with a "secret" that is not secret but is still required.
    secret = os.environ.get("GG_GOOGLE_CLIENT_SECRET") or None
    wanted = list(dict.fromkeys(args.scope or SCOPES))
    verifier, challenge = pkce()
    state = secrets.token_urlsafe(24)
    loop = None if args.manual else Loopback()
    redirect = loop.redirect_uri if loop else f"http://127.0.0.1:{_free_port()}/"
    url = authorize_url(
        status["authUrl"], client_id, redirect, [SCOPE_PREFIX + s for s in wanted], state, challenge
    )
    try:
        print(f"asking Google for: {', '.join(wanted)}")
        print(f"open this address to authorize gg:\n{url}", flush=True)
        if loop is not None:
            if not args.no_browser:
                webbrowser.open(url)
            result = loop.wait(args.timeout)
        else:
            print(
                "after you allow access the browser shows an error page (nothing listens); "
                "paste its whole address here:",
                flush=True,
            )
            result = parse_redirect(sys.stdin.readline())
        code = check(result, state)
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": redirect,
            "client_id": client_id,
        }
        if secret:
            form["client_secret"] = secret
        tokens = exchange(status["tokenUrl"], form)
    except OAuthError as exc:
        sys.stderr.write(f"gg: error: {exc}\n")
        return 1
    finally:
        if loop is not None:
            loop.close()
    params: dict[str, Any] = {
        "connector": "google",
        "clientId": client_id,
        "accessToken": str(tokens["access_token"]),
        "refreshToken": str(tokens["refresh_token"]),
        "expiresIn": max(1, int(tokens.get("expires_in") or 3600)),
        "scope": str(tokens.get("scope") or " ".join(SCOPE_PREFIX + s for s in wanted)),
    }
    if secret:
        params["clientSecret"] = secret
    info = _request(args, "gg/connector.save", params)
    refused = [s for s in wanted if s not in info.get("scopes", [])]
    _print(info)
    if refused:
        print(f"  not granted: {', '.join(refused)} (their tools stay off)")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run one `gg connect` action."""
    if args.action == "google":
        return _google(args)
    if args.action == "list":
        res = _request(args, "gg/connector.list", {})
        if args.json:
            print(json.dumps(res, ensure_ascii=False))
        else:
            for info in res["connectors"]:
                _print(info)
        return 0
    if args.action == "status":
        res = _request(
            args, "gg/connector.status", {"connector": args.connector, "check": args.check}
        )
        if args.json:
            print(json.dumps(res, ensure_ascii=False))
        else:
            _print(res["connector"])
        return 1 if args.check and res["connector"].get("error") else 0
    res = _request(args, "gg/connector.remove", {"connector": args.connector})
    if not res.get("removed"):
        print(f"{args.connector} was not connected")
        return 0
    print(
        f"forgot the {args.connector} tokens; also revoke gg at "
        "myaccount.google.com/permissions to end Google's side"
    )
    return 0


__all__ = ["NAMES", "register", "run"]
