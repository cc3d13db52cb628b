"""The Telegram channel against a real ggd, the scripted model and a fake Bot API on 127.0.0.1.

The fake speaks the real Bot API JSON through aiogram's custom server setting; it keeps
confirmed updates, so a bot that lost its offset would visibly answer them again.
"""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_telegram import FakeTelegram

from .daemon import Daemon, daemon_env

CHAT = 4242
STRANGER = 9999


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    fake = FakeTelegram()
    yield fake
    fake.close()


@pytest.fixture
def tg_daemon(gg_home: Path, workspace: Path, tg: FakeTelegram) -> Iterator[Any]:
    """Factory: a ggd with the Telegram channel pointed at the fake (restartable on one home)."""
    from tests.fakes.fake_openai import FakeModel

    started: list[Daemon] = []
    models: list[FakeModel] = []
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(
        json.dumps({"telegram": {"allowChats": [CHAT], "editIntervalSeconds": 0.2}})
    )

    def make(
        fm: FakeModel, env: dict[str, str] | None = None, config: dict[str, Any] | None = None
    ) -> Daemon:
        if config is not None:
            section = {"allowChats": [CHAT], "editIntervalSeconds": 0.2, **config}
            (gg_home / "config.json").write_text(json.dumps({"telegram": section}))
        if fm not in models:
            models.append(fm.start())
        extra = {
            "OPENAI_BASE_URL": fm.base_url,
            "OPENAI_API_KEY": "test-key",
            "GG_MODEL": "fake-model",
            "GG_TELEGRAM_BOT_TOKEN": tg.token,
            "GG_TELEGRAM_API_BASE": tg.base_url,
            **(env or {}),
        }
        d = Daemon(gg_home, workspace, daemon_env(gg_home, extra)).start()
        started.append(d)
        return d

    yield make
    for d in started:
        d.stop()
    for fm in models:
        fm.stop()


def _said(tg: FakeTelegram, chat: int, text: str) -> Any:
    return next((m for m in tg.sent_to(chat) if m["text"] == text), None)


def _polled_past(tg: FakeTelegram, update_id: int) -> bool:
    """The bot asked for updates after `update_id`: everything up to it was handled and acked."""
    return any(
        c["method"] == "getUpdates" and int(c["fields"].get("offset") or 0) > update_id
        for c in tg.calls
    )


def _user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m.get("role") == "user"]


async def test_text_answered_stranger_ignored_restart_keeps_session_without_replay(
    tg_daemon: Any, tg: FakeTelegram, gg_home: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    fm = FakeModel([{"text": "hello from gg"}, {"text": "second answer"}])
    d = tg_daemon(fm)
    tg.fail_next("sendMessage", 1)  # the first send is throttled: retry_after is honoured
    tg.text(CHAT, "hi")
    stranger = tg.text(STRANGER, "let me in")
    tg.wait_for(lambda: _said(tg, CHAT, "hello from gg"))
    tg.wait_for(lambda: _polled_past(tg, stranger))
    assert tg.sent_to(STRANGER) == []
    assert tg.throttled == ["sendMessage"]
    sends = [c for c in tg.calls if c["method"] == "sendMessage"]
    assert sends[0]["fields"] == sends[1]["fields"]  # the refused send was made again
    assert _user_texts(fm.requests[0])[-1] == "hi"

    status = tg.text(CHAT, "/status")
    tg.wait_for(lambda: _polled_past(tg, status))
    state = json.loads((gg_home / "telegram" / "state.json").read_text())
    sid = state["chats"][str(CHAT)]
    assert state["offset"] == status + 1
    assert (gg_home / "telegram" / "state.json").stat().st_mode & 0o777 == 0o600
    report = tg.wait_for(lambda: [m for m in tg.sent_to(CHAT) if m["text"].startswith("session:")])
    assert sid in report[0]["text"] and "idle" in report[0]["text"]
    c = await d.connect("unix")
    try:
        names = {s["id"]: s["name"] for s in (await c.request("gg/session.list", {}))["sessions"]}
        info = await c.request("gg/system.info")
        channel = next(ch for ch in info["channels"] if ch["name"] == "telegram")
    finally:
        await c.close()
    assert names[sid] == f"telegram:{CHAT}"
    assert channel["state"] == "running", channel
    assert tg.token not in json.dumps(info) and tg.token not in d.logs()  # never logged

    d.stop()
    before = len(fm.requests)
    tg_daemon(fm)
    tg.text(CHAT, "and again")
    tg.wait_for(lambda: _said(tg, CHAT, "second answer"))
    # No replay: the model saw exactly one new request, and it continues the chat's session.
    assert len(fm.requests) == before + 1
    assert _user_texts(fm.requests[-1]) == ["hi", "and again"]
    assert tg.sent_to(STRANGER) == []


async def test_an_approval_is_answered_by_a_button_press(
    tg_daemon: Any, tg: FakeTelegram, workspace: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    write = {"name": "write", "arguments": {"path": "notes.md", "content": "# Notes\n"}}
    fm = FakeModel([{"toolCalls": [write]}, {"text": "Written."}])
    tg_daemon(fm)
    tg.text(CHAT, "make notes")
    prompt = tg.wait_for(lambda: next((m for m in tg.sent_to(CHAT) if m.get("reply_markup")), None))
    assert "Approve write?" in prompt["text"]
    buttons = prompt["reply_markup"]["inline_keyboard"][0]
    assert [b["text"] for b in buttons] == ["Allow", "Deny"]
    assert not (workspace / "notes.md").exists()
    tg.press(CHAT, prompt["message_id"], buttons[0]["callback_data"])
    tg.wait_for(lambda: _said(tg, CHAT, "Written."))
    assert (workspace / "notes.md").read_text() == "# Notes\n"
    assert any(c["method"] == "answerCallbackQuery" for c in tg.calls)
    answered = tg.messages[prompt["message_id"]]
    assert answered["text"].endswith("<i>Allowed</i>") and "reply_markup" not in answered


async def test_a_raising_handler_is_acked_and_the_next_update_is_served(
    tg_daemon: Any, tg: FakeTelegram, gg_home: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    fm = FakeModel([{"text": "still here"}])
    tg.fail_next("getUpdates", 1)  # the first long poll is throttled too: the channel waits
    d = tg_daemon(fm, {"GG_STT_BASE_URL": "http://127.0.0.1:9/v1"})
    # A voice note whose file the Bot API does not have: getFile fails, the handler raises.
    bad = tg.raw(
        {
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": CHAT, "type": "private"},
                "voice": {"file_id": "gone", "file_unique_id": "gone", "duration": 1},
            }
        }
    )
    tg.text(CHAT, "are you there?")
    tg.wait_for(lambda: _said(tg, CHAT, "still here"))
    assert _polled_past(tg, bad)
    assert tg.throttled == ["getUpdates"]
    assert "telegram update failed; acked" in d.logs()


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")
async def test_a_voice_note_is_answered_with_text_and_voice(
    tg_daemon: Any, tg: FakeTelegram
) -> None:
    from tests.fakes.fake_media import FakeMedia, espeak_wav
    from tests.fakes.fake_openai import FakeModel

    media = FakeMedia()
    try:
        audio = espeak_wav("what time is it")
        media.expect_audio(audio, "what time is it")
        fm = FakeModel([{"text": "It is noon."}])
        env = {"GG_STT_BASE_URL": media.base_url, "GG_TTS_BASE_URL": media.base_url}
        tg_daemon(fm, env)
        tg.voice(CHAT, audio)
        tg.wait_for(lambda: _said(tg, CHAT, "It is noon."))
        voice = tg.wait_for(lambda: tg.voices)[0]
        assert voice["chat_id"] == CHAT and voice["bytes"].startswith(b"RIFF")
        assert _user_texts(fm.requests[0])[-1] == "what time is it"
        speech = next(r for r in media.requests if r["path"] == "/v1/audio/speech")
        assert speech["json"]["input"] == "It is noon."
        assert any(m["text"] == "🎙 <i>what time is it</i>" for m in tg.sent_to(CHAT))
    finally:
        media.close()


async def test_status_cancel_and_new_while_a_reply_streams(
    tg_daemon: Any, tg: FakeTelegram, gg_home: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    fm = FakeModel([{"text": "I will never finish", "hang": True}, {"text": "fresh start"}])
    tg_daemon(fm)
    tg.text(CHAT, "work")
    # The reply streams into one message, edited in place while the run goes on.
    streamed = tg.wait_for(
        lambda: next(
            (m for m in tg.sent_to(CHAT) if m["text"].startswith("I will never finish")), None
        )
    )
    assert streamed["text"].endswith(" …") and streamed["edits"] >= 1
    tg.text(CHAT, "/status")
    status = tg.wait_for(
        lambda: next((m for m in tg.sent_to(CHAT) if m["text"].startswith("session:")), None)
    )
    assert "run r_" in status["text"] and "running" in status["text"]
    first_sid = json.loads((gg_home / "telegram" / "state.json").read_text())["chats"][str(CHAT)]

    tg.text(CHAT, "/cancel")
    tg.wait_for(lambda: _said(tg, CHAT, "Canceled."))
    tg.wait_for(
        lambda: tg.messages[streamed["message_id"]]["text"] == "I will never finish\n\n(canceled)"
    )
    tg.text(CHAT, "/new")
    tg.wait_for(lambda: _said(tg, CHAT, "A fresh session starts with your next message."))
    tg.text(CHAT, "hello")
    tg.wait_for(lambda: _said(tg, CHAT, "fresh start"))
    assert _user_texts(fm.requests[-1]) == ["hello"]  # no history: a new session
    sid = json.loads((gg_home / "telegram" / "state.json").read_text())["chats"][str(CHAT)]
    assert sid != first_sid


async def test_a_dangerous_call_without_a_press_times_out_denied(
    tg_daemon: Any, tg: FakeTelegram, tmp_path: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    outside = tmp_path / "outside.txt"
    write = {"name": "write", "arguments": {"path": str(outside), "content": "x"}}
    fm = FakeModel([{"toolCalls": [write]}, {"text": "It was refused."}])
    tg_daemon(fm, config={"approvalTimeoutSeconds": 1})
    tg.text(CHAT, "write outside")
    prompt = tg.wait_for(
        lambda: next((m for m in tg.sent_to(CHAT) if "Approve write?" in m["text"]), None)
    )
    assert "Dangerous" in prompt["text"] and "only if you press Allow" in prompt["text"]
    tg.wait_for(lambda: _said(tg, CHAT, "It was refused."))
    assert not outside.exists()
    assert tg.messages[prompt["message_id"]]["text"].endswith("<i>Timed out: denied</i>")
    tool = [m for m in fm.requests[-1]["messages"] if m.get("role") == "tool"]
    assert "no approval (timeout)" in str(tool[-1]["content"]), tool


async def test_a_message_during_a_turn_steers_it(tg_daemon: Any, tg: FakeTelegram) -> None:
    from tests.fakes.fake_openai import FakeModel

    read = {"name": "read", "arguments": {"path": "README.md"}}
    slow = {"text": "reading the readme now", "chunkSize": 2, "delayMs": 300, "toolCalls": [read]}
    # A third step in case the steering lands after the second request (then it is a follow-up).
    fm = FakeModel([slow, {"text": "read it"}, {"text": "read it"}])
    tg_daemon(fm)
    tg.text(CHAT, "read the readme")
    tg.wait_for(lambda: any(m["text"].startswith("reading") for m in tg.sent_to(CHAT)))
    tg.text(CHAT, "and mention the title")
    tg.wait_for(lambda: _said(tg, CHAT, "read it"))
    later = [_user_texts(r) for r in fm.requests[1:]]
    assert any("and mention the title" in texts for texts in later), later
    # One turn, one reply message: the second text did not start a turn of its own.
    assert sum(1 for c in tg.calls if c["method"] == "sendChatAction") == 1


async def test_a_long_reply_is_split_at_paragraphs_and_escaped(
    tg_daemon: Any, tg: FakeTelegram
) -> None:
    from tests.fakes.fake_openai import FakeModel

    paras = [f"Part {i}: " + "a<b & " * 500 for i in range(3)]  # 3000 characters each
    fm = FakeModel([{"text": "\n\n".join(paras)}])
    tg_daemon(fm)
    tg.text(CHAT, "write a lot")
    tg.wait_for(lambda: [m for m in tg.sent_to(CHAT) if m["text"].startswith("Part 2:")])
    tg.wait_for(lambda: len("".join(m["text"] for m in tg.sent_to(CHAT))) >= 3 * 6500)
    replies = tg.sent_to(CHAT)
    # Each 3000-character paragraph escapes to 6500: two messages each, cut on a boundary.
    assert len(replies) == 6, [m["text"][:20] for m in replies]
    assert all(len(m["text"]) <= 4096 for m in replies)
    joined = html.unescape("".join(m["text"] for m in replies)).replace(" ", "")
    assert joined == "".join(paras).replace(" ", "")
    html_sends = [c for c in tg.calls if c["method"] in ("sendMessage", "editMessageText")]
    assert all(c["fields"].get("parse_mode") == "HTML" for c in html_sends)


async def test_an_unparsable_update_is_logged_acked_and_skipped(
    tg_daemon: Any, tg: FakeTelegram, gg_home: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    fm = FakeModel([{"text": "after the bad one"}])
    d = tg_daemon(fm)
    # A message without `chat`: aiogram cannot parse the getUpdates answer that carries it.
    bad = tg.raw({"message": {"message_id": 6, "date": 0}})
    tg.text(CHAT, "still there?")
    tg.wait_for(lambda: _said(tg, CHAT, "after the bad one"), timeout=30)
    assert _polled_past(tg, bad)
    assert json.loads((gg_home / "telegram" / "state.json").read_text())["offset"] > bad
    assert "telegram update could not be parsed; acked" in d.logs()
    c = await d.connect("unix")
    try:
        info = await c.request("gg/system.info")
    finally:
        await c.close()
    channel = next(ch for ch in info["channels"] if ch["name"] == "telegram")
    assert channel["state"] == "running", channel


GROUP = -100500
OWNER = 4242
MEMBER = 5151


def _answers(tg: FakeTelegram) -> list[str]:
    """The texts of the bot's answerCallbackQuery calls (what a presser sees), oldest first."""
    return [str(c["fields"].get("text")) for c in tg.calls if c["method"] == "answerCallbackQuery"]


async def test_in_a_group_only_allow_users_may_press_allow(
    tg_daemon: Any, tg: FakeTelegram, workspace: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    write = {"name": "write", "arguments": {"path": "notes.md", "content": "# Notes\n"}}
    fm = FakeModel([{"toolCalls": [write]}, {"text": "Written."}])
    tg_daemon(fm, config={"allowChats": [GROUP], "allowUsers": [OWNER]})
    tg.text(GROUP, "make notes", user_id=MEMBER)
    prompt = tg.wait_for(
        lambda: next((m for m in tg.sent_to(GROUP) if m.get("reply_markup")), None)
    )
    allow = prompt["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    # Any member of an allowed group can see the buttons; pressing them is not approving.
    tg.press(GROUP, prompt["message_id"], allow, user_id=MEMBER)
    tg.wait_for(lambda: _answers(tg))
    assert "not allowed to answer approvals" in _answers(tg)[0]
    assert not (workspace / "notes.md").exists()
    assert "reply_markup" in tg.messages[prompt["message_id"]]  # still pending
    tg.press(GROUP, prompt["message_id"], allow, user_id=OWNER)
    tg.wait_for(lambda: _said(tg, GROUP, "Written."))
    assert (workspace / "notes.md").read_text() == "# Notes\n"
    assert _answers(tg)[-1] == "Allowed"


async def test_in_a_group_without_allow_users_nobody_approves(
    tg_daemon: Any, tg: FakeTelegram, workspace: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    write = {"name": "write", "arguments": {"path": "notes.md", "content": "x"}}
    fm = FakeModel([{"toolCalls": [write]}, {"text": "It was refused."}])
    tg_daemon(fm, config={"allowChats": [GROUP], "approvalTimeoutSeconds": 3})
    tg.text(GROUP, "make notes", user_id=OWNER)
    prompt = tg.wait_for(
        lambda: next((m for m in tg.sent_to(GROUP) if m.get("reply_markup")), None)
    )
    allow = prompt["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    tg.press(GROUP, prompt["message_id"], allow, user_id=OWNER)
    tg.wait_for(lambda: _answers(tg))
    assert "telegram.allowUsers" in _answers(tg)[0]
    tg.wait_for(lambda: _said(tg, GROUP, "It was refused."), timeout=30)
    assert not (workspace / "notes.md").exists()
