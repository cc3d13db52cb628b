"""Handlers of gg/connector.*: only the daemon reads or writes GG_HOME/connectors/."""

from __future__ import annotations

import asyncio
import time

from ggd.app import HandlerContext
from ggd.protocol import errors as E
from ggd.protocol.base import Empty

from . import store
from .auth import GoogleAuth, GoogleError
from .config import SCOPES, GoogleConfig, resolve, short_scopes
from .protocol import (
    ConnectorInfo,
    ConnectorListResult,
    ConnectorParams,
    ConnectorRemoveResult,
    ConnectorSaveParams,
    ConnectorStatusParams,
    ConnectorStatusResult,
)
from .provider import tool_names
from .store import Tokens


def _auth(ctx: HandlerContext) -> GoogleAuth:
    cfg = ctx.section(GoogleConfig)
    return GoogleAuth(ctx.services.home, resolve(cfg, ctx.env))


def _local_only(ctx: HandlerContext, what: str) -> None:
    # Tokens to a Google account travel only over the daemon's own machine.
    if ctx.remote:
        raise E.CapabilityUnavailableError(
            f"{what} is refused over a remote connection; run gg connect on the daemon's machine"
        )


def _info(tokens: Tokens | None, error: str | None = None) -> ConnectorInfo:
    if tokens is None:
        return ConnectorInfo(name="google", connected=False, error=error)
    return ConnectorInfo(
        name="google",
        connected=True,
        scopes=tokens.scopes,
        tools=tool_names(tokens.scopes),
        expires_at=tokens.expires_at,
        saved_at=tokens.saved_at or None,
        error=error,
    )


async def _current(ctx: HandlerContext) -> ConnectorInfo:
    try:
        return _info(await asyncio.to_thread(store.load, ctx.services.home))
    except store.StoreError as exc:
        return ConnectorInfo(name="google", connected=False, error=str(exc))


async def connector_list(ctx: HandlerContext, params: Empty) -> ConnectorListResult:
    """Every connector and its state."""
    return ConnectorListResult(connectors=[await _current(ctx)])


async def connector_status(
    ctx: HandlerContext, params: ConnectorStatusParams
) -> ConnectorStatusResult:
    """One connector; with check, a live call (token refresh when due, the Gmail profile)."""
    auth = _auth(ctx)
    info = await _current(ctx)
    if params.check and info.connected:
        try:
            tokens = await auth.tokens()
            info = _info(tokens)
            if "gmail.readonly" in tokens.scopes:
                resp = await auth.request("GET", auth.urls.gmail + "/users/me/profile")
                info.account = str(resp.json().get("emailAddress") or "") or None
        except GoogleError as exc:
            info.error = str(exc)
    return ConnectorStatusResult(
        connector=info,
        auth_url=auth.urls.auth,
        token_url=auth.urls.token,
        client_id=auth.urls.client_id,
        known_scopes=list(SCOPES),
    )


async def connector_save(ctx: HandlerContext, params: ConnectorSaveParams) -> ConnectorInfo:
    """Store a finished flow's tokens (the CLI ran the flow; only ggd writes the store)."""
    _local_only(ctx, "gg/connector.save")
    scopes = short_scopes(params.scope)
    if not scopes:
        raise E.InvalidParamsError(
            "invalid params: scope: Google granted none of the scopes gg uses "
            f"({', '.join(SCOPES)}); run gg connect google again and allow at least one"
        )
    tokens = Tokens(
        client_id=params.client_id,
        client_secret=params.client_secret,
        access_token=params.access_token,
        refresh_token=params.refresh_token,
        expires_at=time.time() + params.expires_in,
        scopes=scopes,
    )
    await asyncio.to_thread(store.save, ctx.services.home, tokens)
    return _info(tokens)


async def connector_remove(ctx: HandlerContext, params: ConnectorParams) -> ConnectorRemoveResult:
    """Forget the tokens."""
    _local_only(ctx, "gg/connector.remove")
    return ConnectorRemoveResult(removed=await asyncio.to_thread(store.remove, ctx.services.home))


HANDLERS = {
    "gg/connector.list": connector_list,
    "gg/connector.status": connector_status,
    "gg/connector.save": connector_save,
    "gg/connector.remove": connector_remove,
}
