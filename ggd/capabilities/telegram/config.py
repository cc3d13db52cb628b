"""config.json `telegram`: the bot token's env var, who may talk and approve, the channel's pacing."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_TOKEN_ENV = "GG_TELEGRAM_BOT_TOKEN"
# Test-only (and for a self-hosted Bot API server): where the Bot API lives.
API_BASE_ENV = "GG_TELEGRAM_API_BASE"
DEFAULT_API_BASE = "https://api.telegram.org"


class TelegramConfig(BaseModel):
    """`telegram: {botTokenEnv, allowChats, ...}`; the token itself never lives in config.json."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    enabled: bool = True
    botTokenEnv: str = DEFAULT_TOKEN_ENV
    allowChats: list[int] = Field(default_factory=list)
    # Who may press Allow/Deny. None (unset): in a private chat its own user, in a group nobody.
    allowUsers: list[int] | None = None
    apiBase: str | None = None
    workspace: str | None = None
    model: str | None = None
    pollTimeoutSeconds: int = Field(default=25, ge=0, le=50)
    editIntervalSeconds: float = Field(default=1.5, ge=0.0, le=30)
    approvalTimeoutSeconds: float = Field(default=300, gt=0, le=3600)
    voiceReplies: bool = True
    voice: str = "alloy"


def token(cfg: TelegramConfig, env: Mapping[str, str]) -> str | None:
    """The bot token from the environment, or None when unset."""
    value = env.get(cfg.botTokenEnv, "").strip()
    return value or None


def api_base(cfg: TelegramConfig, env: Mapping[str, str]) -> str:
    """The Bot API base URL (env first, so a test never needs a config edit)."""
    return (env.get(API_BASE_ENV) or cfg.apiBase or DEFAULT_API_BASE).rstrip("/")
