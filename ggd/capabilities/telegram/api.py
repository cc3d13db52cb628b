"""The Bot API through aiogram 3: long polling, sends and edits with 429 and parse-error handling.

Every call goes through `call`, which sleeps `retry_after` on a 429 and tries again (bounded),
so a flood limit slows the bot down instead of dropping a reply. A rejected HTML message (a
parse error) is sent again as plain text. The token only ever lives inside aiogram's session.

aiogram parses a getUpdates answer as a whole, so one update it cannot read (a message without a
chat, a field of a newer Bot API) would fail the poll forever: the offset never moves past it.
`updates` then reads the answer's updates one by one and hands back the unreadable ones as
`Unparsable`, which the channel logs and acknowledges like any other.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import ClientDecodeError, TelegramBadRequest, TelegramRetryAfter
from aiogram.types import (
    BufferedInputFile,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
)
from pydantic import ValidationError

log = logging.getLogger("ggd.telegram")
T = TypeVar("T")
MAX_RETRY_AFTER = 120.0
RETRIES = 5
Sleeper = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Unparsable:
    """An update of a getUpdates answer that aiogram could not read: only its id is known."""

    update_id: int
    error: str


def keyboard(rows: list[list[tuple[str, str]]]) -> InlineKeyboardMarkup:
    """Inline buttons from (label, callback data) rows."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=t, callback_data=d) for t, d in r] for r in rows
        ]
    )


class BotApi:
    """The few Bot API calls the channel makes."""

    def __init__(self, token: str, base: str, sleeper: Sleeper = asyncio.sleep) -> None:
        session = AiohttpSession(api=TelegramAPIServer.from_base(base))
        self.bot = Bot(token, session=session)
        self.sleep = sleeper
        self.throttled = 0

    async def call(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run one call, honouring 429 retry_after a few times before giving up."""
        for attempt in range(RETRIES):
            try:
                return await make()
            except TelegramRetryAfter as exc:
                if attempt == RETRIES - 1:
                    raise
                self.throttled += 1
                wait = min(float(exc.retry_after), MAX_RETRY_AFTER)
                log.info("telegram flood limit; waiting", extra={"seconds": wait})
                await self.sleep(wait)
        raise AssertionError("unreachable")

    async def updates(self, offset: int, wait: int) -> list[Update | Unparsable]:
        """One long poll: updates from `offset` (which confirms every earlier one)."""
        try:
            got: list[Update | Unparsable] = list(
                await self.call(
                    lambda: self.bot.get_updates(
                        offset=offset or None,
                        timeout=wait,
                        allowed_updates=["message", "callback_query"],
                        request_timeout=wait + 15,
                    )
                )
            )
        except ClientDecodeError as exc:
            got = self._one_by_one(exc.data)
            if not got:
                raise  # not even an update id to skip: a broken answer, not a bad update
        return got

    def _one_by_one(self, answer: Any) -> list[Update | Unparsable]:
        """The updates of an answer aiogram refused as a whole, each parsed on its own."""
        items = answer.get("result") if isinstance(answer, dict) and answer.get("ok") else None
        out: list[Update | Unparsable] = []
        for item in items if isinstance(items, list) else []:
            uid = item.get("update_id") if isinstance(item, dict) else None
            if not isinstance(uid, int) or isinstance(uid, bool):
                continue  # no id to acknowledge; the next good id confirms it anyway
            try:
                out.append(Update.model_validate(item, context={"bot": self.bot}))
            except ValidationError as exc:
                out.append(Unparsable(uid, f"{exc.error_count()} validation error(s)"))
        return out

    async def send(
        self, chat_id: int, html: str, markup: InlineKeyboardMarkup | None = None
    ) -> Message:
        """Send HTML; on a parse error, the same text plain."""
        try:
            return await self.call(
                lambda: self.bot.send_message(chat_id, html, parse_mode="HTML", reply_markup=markup)
            )
        except TelegramBadRequest as exc:
            if "parse" not in exc.message.lower():
                raise
            return await self.call(
                lambda: self.bot.send_message(chat_id, _plain(html), reply_markup=markup)
            )

    async def edit(
        self, chat_id: int, message_id: int, html: str, markup: InlineKeyboardMarkup | None = None
    ) -> None:
        """Replace a message's text; 'not modified' is not an error, a parse error goes plain."""
        try:
            await self.call(
                lambda: self.bot.edit_message_text(
                    text=html,
                    chat_id=chat_id,
                    message_id=message_id,
                    parse_mode="HTML",
                    reply_markup=markup,
                )
            )
        except TelegramBadRequest as exc:
            text = exc.message.lower()
            if "not modified" in text:
                return
            if "parse" not in text:
                raise
            await self.call(
                lambda: self.bot.edit_message_text(
                    text=_plain(html), chat_id=chat_id, message_id=message_id, reply_markup=markup
                )
            )

    async def voice(self, chat_id: int, audio: bytes, filename: str) -> None:
        """Send a voice note (multipart upload)."""
        await self.call(
            lambda: self.bot.send_voice(chat_id, BufferedInputFile(audio, filename=filename))
        )

    async def answer(self, query_id: str, text: str) -> None:
        """Acknowledge a button press (stops the client's spinner)."""
        await self.call(lambda: self.bot.answer_callback_query(query_id, text=text))

    async def typing(self, chat_id: int) -> None:
        """Show 'typing…' while a turn starts."""
        await self.call(lambda: self.bot.send_chat_action(chat_id, "typing"))

    async def download(self, file_id: str, limit: int) -> bytes:
        """A file's bytes (a voice note), refused above `limit` bytes."""
        info = await self.call(lambda: self.bot.get_file(file_id))
        if (info.file_size is not None and info.file_size > limit) or not info.file_path:
            raise ValueError("the file is too large to transcribe")
        path = info.file_path
        buf: Any = await self.call(lambda: self.bot.download_file(path))
        data: bytes = buf.read()
        return data

    async def close(self) -> None:
        """Close the HTTP session."""
        await self.bot.session.close()


def _plain(html: str) -> str:
    """The text of our own HTML rendering (tags dropped, entities decoded)."""
    import html as h
    import re

    return h.unescape(re.sub(r"</?pre>", "", html))
