"""config.json `google`: the OAuth client and the four base URLs, with env overrides for tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

AUTH_URL = "https://accounts.google.com/o/oauth2/v2/auth"
TOKEN_URL = "https://oauth2.googleapis.com/token"
GMAIL_URL = "https://gmail.googleapis.com/gmail/v1"
CALENDAR_URL = "https://www.googleapis.com/calendar/v3"

# Short scope names (what the CLI and status show) to Google's scope URLs.
SCOPE_PREFIX = "https://www.googleapis.com/auth/"
SCOPES = ("gmail.readonly", "gmail.send", "calendar.events", "calendar.readonly")


class GoogleConfig(BaseModel):
    """`google: {clientId, clientSecretEnv, authUrl, tokenUrl, gmailUrl, calendarUrl}`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    clientId: str | None = None
    clientSecretEnv: str | None = None
    authUrl: str | None = Field(default=None, pattern=r"^https?://")
    tokenUrl: str | None = Field(default=None, pattern=r"^https?://")
    gmailUrl: str | None = Field(default=None, pattern=r"^https?://")
    calendarUrl: str | None = Field(default=None, pattern=r"^https?://")
    timeoutSeconds: float = Field(default=30, gt=0, le=300)


@dataclass(frozen=True)
class Urls:
    """Resolved endpoints and the configured client (the secret only ever comes from env)."""

    auth: str
    token: str
    gmail: str
    calendar: str
    client_id: str | None
    client_secret: str | None
    timeout: float


def resolve(cfg: GoogleConfig, env: Mapping[str, str]) -> Urls:
    """`GG_GOOGLE_{AUTH,TOKEN,GMAIL,CALENDAR}_URL` and `GG_GOOGLE_CLIENT_ID` override config."""

    def pick(name: str, configured: str | None, default: str) -> str:
        return (env.get(f"GG_GOOGLE_{name}_URL") or configured or default).rstrip("/")

    secret_env = cfg.clientSecretEnv or "GG_GOOGLE_CLIENT_SECRET"
    return Urls(
        auth=pick("AUTH", cfg.authUrl, AUTH_URL),
        token=pick("TOKEN", cfg.tokenUrl, TOKEN_URL),
        gmail=pick("GMAIL", cfg.gmailUrl, GMAIL_URL),
        calendar=pick("CALENDAR", cfg.calendarUrl, CALENDAR_URL),
        client_id=env.get("GG_GOOGLE_CLIENT_ID") or cfg.clientId,
        client_secret=env.get(secret_env) or None,
        timeout=cfg.timeoutSeconds,
    )


def short_scopes(scope: str) -> list[str]:
    """The known short names in a space-separated OAuth scope string, in a stable order."""
    granted = {s.removeprefix(SCOPE_PREFIX) for s in scope.split()}
    return [s for s in SCOPES if s in granted]
