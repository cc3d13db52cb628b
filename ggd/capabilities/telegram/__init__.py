"""The Telegram channel: reach gg from your phone through a bot (aiogram 3, long polling).

Configured by the bot token in `GG_TELEGRAM_BOT_TOKEN` (or the env var named by
`telegram.botTokenEnv`) and the chat allowlist `telegram.allowChats`; started only in the daemon
that owns the channels. One session per chat (`telegram:<chatId>`), replies streamed by editing
one message, voice notes through the media STT/TTS endpoints, approvals as inline buttons,
/cancel /new /status. State (offset, chat sessions) in GG_HOME/telegram. See docs/telegram.md.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

from ggd.app import Capability, Channel, ChannelContext

from .config import TelegramConfig, api_base, token


def _channels(ctx: ChannelContext) -> Sequence[Channel] | str:
    cfg = ctx.section(TelegramConfig)
    if not cfg.enabled:
        return "disabled in config.json (telegram.enabled is false)"
    secret = token(cfg, ctx.env)
    if secret is None:
        return f"no bot token (set {cfg.botTokenEnv})"
    if importlib.util.find_spec("aiogram") is None:
        return "aiogram is not installed (pip install 'gg[telegram]')"
    from .channel import TelegramChannel

    return [TelegramChannel(ctx.services, cfg, secret, api_base(cfg, ctx.env))]


CAPABILITY = Capability(
    name="telegram",
    summary="A Telegram bot channel: chat with gg from your phone (text, voice, approvals).",
    config_key="telegram",
    config_model=TelegramConfig,
    channels=_channels,
)

__all__ = ["CAPABILITY", "TelegramConfig"]
