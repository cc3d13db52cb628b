"""The poll loop against the fake Bot API: network errors never end it, a bad token does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ggd.app.workspaces import Workspace
from ggd.capabilities.telegram.channel import TelegramChannel
from ggd.capabilities.telegram.config import TelegramConfig
from tests.fakes.fake_telegram import FakeTelegram


class Services:
    """Just what the loop touches when no allowed chat writes (no turns start)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.owns_channels = True

    def section(self, key: str) -> Any:
        return None

    def workspace(self, workspace_id: str) -> Workspace | None:
        return None

    def default_workspace(self) -> Workspace:
        return Workspace("w_x", "x", self.home)


async def _until(pred: Any, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.02)


async def test_network_errors_back_off_and_stop_still_ends_the_loop(tmp_path: Path) -> None:
    cfg = TelegramConfig(allowChats=[1], pollTimeoutSeconds=1)
    # Port 9 (discard) on 127.0.0.1: nothing listens, every poll fails to connect.
    ch = TelegramChannel(Services(tmp_path), cfg, "123:abc", "http://127.0.0.1:9")  # type: ignore[arg-type]
    task = asyncio.create_task(ch.run())
    await _until(lambda: ch.poll_errors >= 1)
    assert not task.done()
    await ch.stop()
    await asyncio.wait_for(task, 10)  # returns, does not raise


async def test_a_rejected_token_fails_the_channel_with_a_clear_reason(tmp_path: Path) -> None:
    tg = FakeTelegram()
    try:
        cfg = TelegramConfig(allowChats=[1], pollTimeoutSeconds=1)
        ch = TelegramChannel(Services(tmp_path), cfg, "999:wrong", tg.base_url)  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match="rejected the bot token") as info:
            await asyncio.wait_for(ch.run(), 10)
        assert "999:wrong" not in str(info.value)
    finally:
        tg.close()


async def test_strangers_are_acked_without_a_reply(tmp_path: Path) -> None:
    tg = FakeTelegram()
    try:
        cfg = TelegramConfig(allowChats=[1], pollTimeoutSeconds=1)
        ch = TelegramChannel(Services(tmp_path), cfg, tg.token, tg.base_url)  # type: ignore[arg-type]
        task = asyncio.create_task(ch.run())
        uid = tg.text(555, "hello?")
        await _until(lambda: ch.handled >= 1)
        await ch.stop()
        await asyncio.wait_for(task, 10)
        assert tg.sent_to(555) == []
        assert ch.state.offset() == uid + 1
    finally:
        tg.close()


async def test_a_duplicate_delivery_is_handled_once(tmp_path: Path) -> None:
    from aiogram.types import Update

    cfg = TelegramConfig(allowChats=[1])
    ch = TelegramChannel(Services(tmp_path), cfg, "123:abc", "http://127.0.0.1:9")  # type: ignore[arg-type]
    seen: list[int] = []

    async def handle(up: Update) -> None:
        seen.append(up.update_id)
        if up.update_id == 6:
            raise ValueError("a deterministic failure")

    ch.handle = handle  # type: ignore[method-assign]
    batch = [Update(update_id=5), Update(update_id=6), Update(update_id=5)]
    offset = await ch._handle_batch(batch, 0)
    again = await ch._handle_batch([Update(update_id=6), Update(update_id=7)], offset)
    assert seen == [5, 6, 7] and again == 8
    assert ch.failures == 1 and ch.state.offset() == 8
    await ch.api.close()
