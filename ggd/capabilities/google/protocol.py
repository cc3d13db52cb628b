"""gg/connector.list|status|save|remove: the connectors' protocol rows (Google is the one so far)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ggd.protocol import MethodSpec
from ggd.protocol.base import Empty, Params, Result, WireModel

ConnectorName = Literal["google"]


class ConnectorInfo(WireModel):
    """One connector's state (never a token)."""

    name: str
    connected: bool
    scopes: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    expires_at: float | None = None
    saved_at: float | None = None
    account: str | None = None
    error: str | None = None


class ConnectorListResult(Result):
    """Every connector gg knows."""

    connectors: list[ConnectorInfo]


class ConnectorParams(Params):
    """Names one connector."""

    connector: ConnectorName


class ConnectorStatusParams(Params):
    """Names one connector; `check` calls Google now (refreshing the token if due)."""

    connector: ConnectorName
    check: bool = False


class ConnectorStatusResult(Result):
    """The connector's state plus what `gg connect` needs to start an OAuth flow."""

    connector: ConnectorInfo
    auth_url: str
    token_url: str
    client_id: str | None = None
    known_scopes: list[str]


class ConnectorSaveParams(Params):
    """The token response of a finished authorization-code flow (local clients only)."""

    connector: ConnectorName
    client_id: str = Field(min_length=1, max_length=512)
    client_secret: str | None = Field(default=None, max_length=512)
    access_token: str = Field(min_length=1, max_length=8192)
    refresh_token: str = Field(min_length=1, max_length=8192)
    expires_in: int = Field(ge=1, le=10_000_000)
    scope: str = Field(max_length=8192)


class ConnectorRemoveResult(Result):
    """Whether a connection was forgotten."""

    removed: bool


_INFO = {
    "name": "google",
    "connected": True,
    "scopes": ["gmail.readonly", "calendar.events"],
    "tools": ["gmail_search", "gmail_read", "calendar_agenda", "calendar_create"],
    "expiresAt": 1795000000.0,
    "savedAt": 1794996400.0,
}
CONNECTOR_LIST = MethodSpec(
    "gg/connector.list",
    "Connectors (Google): connected or not, granted scopes and the tools they enable.",
    Empty,
    ConnectorListResult,
    example={"params": {}, "result": {"connectors": [_INFO]}},
)
CONNECTOR_STATUS = MethodSpec(
    "gg/connector.status",
    "One connector's state and OAuth endpoints; check=true calls Google now.",
    ConnectorStatusParams,
    ConnectorStatusResult,
    example={
        "params": {"connector": "google"},
        "result": {
            "connector": _INFO,
            "authUrl": "https://accounts.google.com/o/oauth2/v2/auth",
            "tokenUrl": "https://oauth2.googleapis.com/token",
            "clientId": "1234-abc.apps.googleusercontent.com",
            "knownScopes": ["gmail.readonly", "gmail.send", "calendar.events", "calendar.readonly"],
        },
    },
)
CONNECTOR_SAVE = MethodSpec(
    "gg/connector.save",
    "Store the tokens of a finished OAuth flow (gg connect google); local clients only.",
    ConnectorSaveParams,
    ConnectorInfo,
    example={
        "params": {
            "connector": "google",
            "clientId": "1234-abc.apps.googleusercontent.com",
            "accessToken": "ya29.a0...",
            "refreshToken": "1//0g...",
            "expiresIn": 3599,
            "scope": "https://www.googleapis.com/auth/gmail.readonly",
        },
        "result": {**_INFO, "scopes": ["gmail.readonly"], "tools": ["gmail_search", "gmail_read"]},
    },
)
CONNECTOR_REMOVE = MethodSpec(
    "gg/connector.remove",
    "Forget a connector's tokens (revoke access at myaccount.google.com too); local only.",
    ConnectorParams,
    ConnectorRemoveResult,
    example={"params": {"connector": "google"}, "result": {"removed": True}},
)
METHODS = (CONNECTOR_LIST, CONNECTOR_STATUS, CONNECTOR_SAVE, CONNECTOR_REMOVE)
