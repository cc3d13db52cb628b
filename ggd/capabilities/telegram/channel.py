"""The Telegram channel: long polling with a persisted offset, the allowlist, commands, buttons.

- Updates are handled in order; after each batch the next offset is persisted (the ack), so a
  restart neither replays nor loses an update. An update below the offset (a duplicate) is
  skipped. A handler that raises is logged and its update acked all the same: a deterministic
  failure is never re-delivered, and the channel keeps serving. So is an update aiogram cannot
  parse at all (`Unparsable`): logged, acked, skipped.
- Only chats in `telegram.allowChats` are answered; any other chat gets no reply at all.
- An approval button counts only when pressed by someone who may approve (`may_approve`): a user
  in `telegram.allowUsers`, or, while that is unset, the user of a private chat. In a group
  without `allowUsers` nobody may: every member of an allowed group sees the buttons.
- Network errors back off (1 s doubling to 30 s) and never end the channel; a 429 waits
  `retry_after`. A rejected token (401) does end it: the supervisor reports `failed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
from collections.abc import Awaitable, Callable

from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramNetworkError,
    TelegramUnauthorizedError,
)
from aiogram.types import CallbackQuery, Message, Update

from ggd.app import DaemonServices, Run
from ggd.app.workspaces import Workspace
from ggd.protocol import errors as E

from . import speech
from .api import BotApi, Unparsable
from .chat import ChatRunner, Item
from .config import TelegramConfig
from .state import TelegramState

log = logging.getLogger("ggd.telegram")
VOICE_LIMIT = 20 * 1024 * 1024  # the Bot API's own download limit
HELP = (
    "I am gg. Write to me and I work in the daemon's workspace.\n"
    "/status what I am doing · /cancel stop the current turn · /new start a fresh session"
)


class TelegramChannel:
    """Run by the daemon's channel supervisor."""

    name = "telegram"

    def __init__(
        self,
        services: DaemonServices,
        cfg: TelegramConfig,
        token: str,
        base: str,
        sleeper: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.services = services
        self.cfg = cfg
        self.allowed = set(cfg.allowChats)
        self.api = BotApi(token, base, sleeper)
        self.state = TelegramState(services.home)
        self.runner = ChatRunner(self)
        self.approvals: dict[str, tuple[int, Run, int]] = {}
        self.sleep = sleeper
        self.handled = 0
        self.failures = 0
        self.poll_errors = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._stop = asyncio.Event()

    def workspace(self) -> Workspace:
        """Where Telegram turns run: config `telegram.workspace`, else the default."""
        if self.cfg.workspace:
            ws = self.services.workspace(self.cfg.workspace)
            if ws is not None:
                return ws
        return self.services.default_workspace()

    async def run(self) -> None:
        """Poll until stopped."""
        if not self.allowed:
            log.warning("telegram: telegram.allowChats is empty, so nobody is answered")
        offset = await asyncio.to_thread(self.state.offset)
        backoff = 1.0
        try:
            while not self._stop.is_set():
                try:
                    updates = await self._poll(offset)
                except TelegramUnauthorizedError:
                    raise RuntimeError(
                        "Telegram rejected the bot token; set a valid one and restart"
                    ) from None
                except (TelegramNetworkError, TelegramAPIError, ClientDecodeError, OSError) as exc:
                    # Network trouble, a 5xx, a 409 (another poller), an answer that is not
                    # even JSON (a proxy's error page): wait and poll again.
                    log.warning(
                        "telegram poll failed; retrying", extra={"error": type(exc).__name__}
                    )
                    self.poll_errors += 1
                    await self._pause(backoff)
                    backoff = min(backoff * 2, 30.0)
                    continue
                backoff = 1.0
                if updates is None:
                    break
                offset = await self._handle_batch(updates, offset)
        finally:
            for t in list(self._tasks):
                t.cancel()
            await self.runner.aclose()
            await self.api.close()

    async def _poll(self, offset: int) -> list[Update | Unparsable] | None:
        """One long poll, or None when stop() came first."""
        poll = asyncio.ensure_future(self.api.updates(offset, self.cfg.pollTimeoutSeconds))
        stop = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({poll, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not poll.done():
            poll.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await poll
            return None
        return poll.result()

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)

    async def _handle_batch(self, updates: list[Update | Unparsable], offset: int) -> int:
        start = offset
        for up in updates:
            if up.update_id < offset:
                continue  # already handled (a duplicate delivery)
            try:
                if isinstance(up, Unparsable):
                    self.failures += 1
                    log.warning(
                        "telegram update could not be parsed; acked",
                        extra={"update": up.update_id, "error": up.error},
                    )
                else:
                    await self.handle(up)
            except Exception:
                self.failures += 1
                log.exception("telegram update failed; acked", extra={"update": up.update_id})
            self.handled += 1
            offset = up.update_id + 1
        if offset != start:
            await asyncio.to_thread(self.state.set_offset, offset)
        return offset

    async def stop(self) -> None:
        """Return from run() now (an open long poll is abandoned)."""
        self._stop.set()

    # -- one update ------------------------------------------------------------------------------

    async def handle(self, up: Update) -> None:
        """Dispatch one update."""
        if up.callback_query is not None:
            await self._press(up.callback_query)
        elif up.message is not None:
            await self._message(up.message)

    async def _message(self, m: Message) -> None:
        chat_id = m.chat.id
        if chat_id not in self.allowed:
            log.info("telegram: message from a chat not allowed; ignored", extra={"chat": chat_id})
            return
        body = (m.text or "").strip()
        if body.startswith("/"):
            await self._command(chat_id, body.split()[0].split("@")[0].lower())
            return
        media = m.voice or m.audio
        if media is not None:
            await self._voice(chat_id, media.file_id)
            return
        if body:
            self.runner.submit(chat_id, Item(body))

    async def _voice(self, chat_id: int, file_id: str) -> None:
        ep = speech.resolve("stt", self.services.section("media"))
        if ep is None:
            await self.api.send(chat_id, "Voice notes need speech-to-text: configure media.stt.")
            return
        audio = await self.api.download(file_id, VOICE_LIMIT)
        # Transcription can take a while: off the poll loop, so button presses keep flowing.
        task = asyncio.create_task(self._transcribe(chat_id, ep, audio), name="telegram stt")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _transcribe(self, chat_id: int, ep: speech.Speech, audio: bytes) -> None:
        try:
            said = await speech.transcribe(ep, audio, "voice.ogg")
        except speech.SpeechError as exc:
            log.warning("telegram: transcription failed", extra={"error": str(exc)})
            with contextlib.suppress(Exception):
                await self.api.send(chat_id, html.escape(f"I could not transcribe that: {exc}"))
            return
        except Exception:
            log.exception("telegram: transcription failed")
            return
        if not said:
            with contextlib.suppress(Exception):
                await self.api.send(chat_id, "I heard nothing in that voice note.")
            return
        with contextlib.suppress(Exception):
            await self.api.send(chat_id, f"🎙 <i>{html.escape(said)}</i>")
        self.runner.submit(chat_id, Item(said, voice=True))

    async def _command(self, chat_id: int, cmd: str) -> None:
        if cmd == "/cancel":
            done = self.runner.cancel(chat_id)
            await self.api.send(chat_id, "Canceled." if done else "Nothing is running.")
        elif cmd == "/new":
            self.runner.cancel(chat_id)
            await asyncio.to_thread(self.state.set_session, chat_id, None)
            await self.api.send(chat_id, "A fresh session starts with your next message.")
        elif cmd == "/status":
            await self.api.send(chat_id, html.escape(await self._status(chat_id)))
        else:
            await self.api.send(chat_id, html.escape(HELP))

    async def _status(self, chat_id: int) -> str:
        sid = await asyncio.to_thread(self.state.session, chat_id)
        c = self.runner.chat(chat_id)
        lines = [f"session: {sid or '(none yet)'}", f"workspace: {self.workspace().name}"]
        if c.run is not None and not c.run.done:
            lines.append(f"run {c.run.id}: {c.run.status}")
            if c.run.pending:
                lines.append(f"waiting for {len(c.run.pending)} approval(s)")
        else:
            lines.append("idle")
        if c.queue:
            lines.append(f"{len(c.queue)} message(s) queued")
        return "\n".join(lines)

    def may_approve(self, chat_id: int, user_id: int) -> str:
        """Why `user_id` may not answer approvals in `chat_id`, or "" when they may."""
        users = self.cfg.allowUsers
        if users is not None:
            return "" if user_id in users else "You are not allowed to answer approvals here."
        if user_id == chat_id:
            return ""  # a private chat's id is its user's id: the chat's own user
        return (
            "Nobody may answer approvals in a group until telegram.allowUsers "
            "lists who may; the request stays pending."
        )

    async def _press(self, q: CallbackQuery) -> None:
        data = q.data or ""
        chat_id = q.message.chat.id if q.message is not None else q.from_user.id
        if chat_id not in self.allowed:
            return
        kind, _, rest = data.partition(":")
        aid, _, answer = rest.rpartition(":")
        entry = self.approvals.get(aid)
        if kind != "ap" or entry is None or entry[0] != chat_id:
            await self.api.answer(q.id, "That approval is no longer pending.")
            return
        refusal = self.may_approve(chat_id, q.from_user.id)
        if refusal:
            # The approval stays pending: someone who may answer still can (or it times out).
            log.info("telegram: approval press refused", extra={"chat": chat_id})
            await self.api.answer(q.id, refusal)
            return
        _chat, run, _msg = entry
        allow = answer == "y"
        try:
            run.answer(aid, allow, "once", by="user")
        except E.ApprovalExpiredError:
            await self.api.answer(q.id, "That approval was already answered.")
            return
        await self.api.answer(q.id, "Allowed" if allow else "Denied")
