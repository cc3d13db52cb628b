"""Authorized calls to Google: refresh before expiry and once on a 401, under the store's lock."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import httpx

from . import store
from .config import Urls, short_scopes
from .store import Tokens

log = logging.getLogger("ggd.google")


class GoogleError(Exception):
    """A Google call failed; the message says what happened and what to do, never a token."""


NOT_CONNECTED = "Google is not connected; run `gg connect google`"


def _acquire(home: Path) -> Any:
    lk = store.lock(home)
    lk.acquire()
    return lk


class GoogleAuth:
    """Access tokens for one GG_HOME, refreshed through the token endpoint when needed."""

    def __init__(self, home: Path, urls: Urls) -> None:
        self.home = home
        self.urls = urls
        # One refresh at a time inside this process; the file lock covers other processes.
        self._refreshing = asyncio.Lock()
        self.refreshes = 0

    async def tokens(self) -> Tokens:
        """The stored tokens, refreshed first when the access token is about to expire."""
        cur = await asyncio.to_thread(self._load)
        if cur.expiring():
            cur = await self.refresh(stale=cur.access_token)
        return cur

    def _load(self) -> Tokens:
        try:
            cur = store.load(self.home)
        except store.StoreError as exc:
            raise GoogleError(str(exc)) from None
        if cur is None:
            raise GoogleError(NOT_CONNECTED)
        return cur

    async def refresh(self, stale: str) -> Tokens:
        """A fresh access token; skips the exchange when another refresher replaced `stale`."""
        async with self._refreshing:
            lk = await asyncio.to_thread(_acquire, self.home)
            try:
                cur = await asyncio.to_thread(self._load)
                if cur.access_token != stale and not cur.expiring():
                    return cur
                new = await self._exchange(cur)
                await asyncio.to_thread(store.write, self.home, new)
                return new
            finally:
                await asyncio.to_thread(lk.release)

    async def _exchange(self, cur: Tokens) -> Tokens:
        form = {
            "grant_type": "refresh_token",
            "refresh_token": cur.refresh_token,
            "client_id": cur.client_id,
        }
        if cur.client_secret:
            form["client_secret"] = cur.client_secret
        try:
            async with httpx.AsyncClient(timeout=self.urls.timeout) as http:
                resp = await http.post(self.urls.token, data=form)
        except httpx.HTTPError as exc:
            raise GoogleError(
                f"Google's token endpoint is unreachable ({type(exc).__name__})"
            ) from None
        body: dict[str, Any] = {}
        try:
            body = resp.json()
        except ValueError:
            pass
        if resp.status_code >= 400 or "access_token" not in body:
            reason = str(body.get("error", resp.status_code)) if isinstance(body, dict) else ""
            if reason == "invalid_grant":
                raise GoogleError(
                    "Google refused the stored refresh token (revoked or expired); "
                    "run `gg connect google` again"
                )
            raise GoogleError(f"Google's token endpoint refused the refresh ({reason})")
        self.refreshes += 1
        log.info("google: access token refreshed")  # never the token itself
        scopes = short_scopes(str(body["scope"])) if body.get("scope") else cur.scopes
        return Tokens(
            client_id=cur.client_id,
            client_secret=cur.client_secret,
            access_token=str(body["access_token"]),
            # Google usually keeps the refresh token; when it rotates one, keep the new one.
            refresh_token=str(body.get("refresh_token") or cur.refresh_token),
            expires_at=time.time() + float(body.get("expires_in", 3600)),
            scopes=scopes,
        )

    async def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
        """One authorized call: a 401 refreshes once and retries once; errors are GoogleError."""
        cur = await self.tokens()
        async with httpx.AsyncClient(timeout=self.urls.timeout) as http:
            for attempt in (0, 1):
                headers = {"Authorization": f"Bearer {cur.access_token}"}
                try:
                    resp = await http.request(method, url, headers=headers, **kw)
                except httpx.HTTPError as exc:
                    raise GoogleError(f"Google is unreachable ({type(exc).__name__})") from None
                if resp.status_code == 401 and attempt == 0:
                    cur = await self.refresh(stale=cur.access_token)
                    continue
                break
        if resp.status_code >= 400:
            raise GoogleError(_describe(resp))
        return resp


def _describe(resp: httpx.Response) -> str:
    """Google's error message (`{"error": {"code", "message"}}`), trimmed."""
    detail = ""
    try:
        err = resp.json().get("error")
        detail = str(err.get("message", "") if isinstance(err, dict) else err or "")[:300]
    except (ValueError, AttributeError):
        pass
    if resp.status_code == 401:
        return "Google rejected the connection even after a refresh; run `gg connect google` again"
    if resp.status_code == 403:
        return "Google refused (403): " + (detail or "the granted scopes do not allow this")
    return f"Google answered {resp.status_code}" + (f": {detail}" if detail else "")
