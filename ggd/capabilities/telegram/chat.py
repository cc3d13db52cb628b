"""One chat: its session, one turn at a time, the reply streamed by editing one message.

Messages that arrive while a turn runs steer it (taken at the next model boundary, or as a
follow-up after the answer); messages that arrive between turns queue and start the next one.
The streamed message is edited at most once per `edit_interval`; the final answer replaces it,
split into further messages at 4096 characters.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ggd.app import Run, TurnRequest
from ggd.protocol import errors as E

from . import speech, text
from .approver import ButtonApprover

if TYPE_CHECKING:
    from .channel import TelegramChannel

log = logging.getLogger("ggd.telegram")
PREVIEW = 3500  # characters of a streamed preview (the final reply is split properly)


@dataclass
class Item:
    """One queued prompt; `voice` asks for a spoken reply too."""

    prompt: str
    voice: bool = False


@dataclass
class Chat:
    """A chat's turn state."""

    chat_id: int
    queue: deque[Item] = field(default_factory=deque)
    run: Run | None = None
    worker: asyncio.Task[None] | None = None
    turns: int = 0


class ChatRunner:
    """Starts and streams the turns of every chat of one channel."""

    def __init__(self, channel: TelegramChannel) -> None:
        self.ch = channel
        self.chats: dict[int, Chat] = {}

    def chat(self, chat_id: int) -> Chat:
        """The chat's state (created on first use)."""
        return self.chats.setdefault(chat_id, Chat(chat_id))

    def submit(self, chat_id: int, item: Item) -> str:
        """Steer the running turn or queue a new one; says which."""
        c = self.chat(chat_id)
        if c.run is not None and not c.run.done:
            try:
                self.ch.services.steer(c.run.session_id, item.prompt, False)
                return "steered"
            except E.RunNotFoundError:
                pass  # it just ended: queue a turn instead
        c.queue.append(item)
        if c.worker is None or c.worker.done():
            c.worker = asyncio.create_task(self._work(c), name=f"telegram chat {chat_id}")
        return "queued"

    async def _work(self, c: Chat) -> None:
        while c.queue:
            item = c.queue.popleft()
            try:
                await self._turn(c, item)
            except asyncio.CancelledError:
                raise
            except E.GgError as exc:
                # A typed refusal (no model configured, the session is busy): say what it was.
                log.warning("telegram turn refused", extra={"chat": c.chat_id, "code": exc.symbol})
                with contextlib.suppress(Exception):
                    await self.ch.api.send(
                        c.chat_id, html.escape(f"I could not start: {exc.message}")
                    )
            except Exception:
                log.exception("telegram turn failed", extra={"chat": c.chat_id})
                with contextlib.suppress(Exception):
                    await self.ch.api.send(
                        c.chat_id, "Sorry: that turn failed (see the daemon log)."
                    )
            finally:
                c.run = None

    async def _start(self, c: Chat, prompt: str) -> Run:
        st = self.ch.state
        sid = await asyncio.to_thread(st.session, c.chat_id)
        req = TurnRequest(
            workspace=self.ch.workspace(),
            prompt=prompt,
            approver=ButtonApprover(self.ch, c.chat_id, self.ch.cfg.approvalTimeoutSeconds),
            session_id=sid,
            session_name=f"telegram:{c.chat_id}",
            model=self.ch.cfg.model,
        )
        try:
            run = await self.ch.services.start_turn(req)
        except E.SessionNotFoundError:
            req.session_id = None  # deleted meanwhile: a fresh session for the chat
            run = await self.ch.services.start_turn(req)
        if run.session_id != sid:
            await asyncio.to_thread(st.set_session, c.chat_id, run.session_id)
        return run

    async def _turn(self, c: Chat, item: Item) -> None:
        api = self.ch.api
        with contextlib.suppress(Exception):
            await api.typing(c.chat_id)
        run = c.run = await self._start(c, item.prompt)
        c.turns += 1
        msg = await api.send(c.chat_id, "…")
        reply = await self._stream(c.chat_id, msg.message_id, run)
        chunks = text.pieces(reply)
        await api.edit(c.chat_id, msg.message_id, chunks[0])
        for chunk in chunks[1:]:
            await api.send(c.chat_id, chunk)
        if item.voice and run.status == "completed" and self.ch.cfg.voiceReplies:
            await self._speak(c.chat_id, reply)

    async def _stream(self, chat_id: int, message_id: int, run: Run) -> str:
        """Follow the run's events, editing the preview message; returns the final reply."""
        after = 0
        body = ""
        shown = ""
        last = time.monotonic()
        interval = self.ch.cfg.editIntervalSeconds
        while True:
            events: list[dict[str, Any]] = await run.wait_events(after, 1.0)
            for ev in events:
                after = ev["sequence"]
                if ev["type"] == "text_delta":
                    body += ev["text"]
            if run.done and not run.ring.since(after):
                break
            if body != shown and time.monotonic() - last >= interval:
                shown = body
                last = time.monotonic()
                preview = html.escape(body[-PREVIEW:], quote=False) + " …"
                with contextlib.suppress(Exception):
                    await self.ch.api.edit(chat_id, message_id, preview)
        if run.status == "completed":
            return (run.result or body).strip() or "(no answer)"
        if run.status == "canceled":
            return (body + "\n\n(canceled)").strip()
        return (body + f"\n\nThe run failed: {run.error or 'unknown error'}").strip()

    async def _speak(self, chat_id: int, reply: str) -> None:
        ep = speech.resolve("tts", self.ch.services.section("media"))
        if ep is None:
            return
        try:
            audio = await speech.speak(ep, reply, self.ch.cfg.voice)
            await self.ch.api.voice(chat_id, audio, "reply.ogg")
        except Exception:
            log.warning("voice reply not sent", extra={"chat": chat_id}, exc_info=True)

    def cancel(self, chat_id: int) -> bool:
        """Cancel the chat's running turn and drop queued ones; False when idle."""
        c = self.chat(chat_id)
        c.queue.clear()
        if c.run is None or c.run.done:
            return False
        self.ch.services.cancel(c.run)
        return True

    async def aclose(self) -> None:
        """Stop following turns (the runs themselves end with the daemon)."""
        tasks = [c.worker for c in self.chats.values() if c.worker and not c.worker.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
