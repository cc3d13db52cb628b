"""Media through a real daemon and the real CLI against the fake endpoint (real PNG and speech)."""

from __future__ import annotations

import base64
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_media import FakeMedia, espeak_wav

from .runs_helpers import finish, new_session, start, until

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")
GG = str(Path(sys.executable).parent / "gg")


@pytest.fixture
def fake_media() -> Any:
    f = FakeMedia()
    yield f
    f.close()


def _media_env(fake: FakeMedia) -> dict[str, str]:
    return {f"GG_{k}_BASE_URL": fake.base_url for k in ("IMAGE", "TTS", "STT")}


async def test_image_speech_and_transcription_tools_in_one_run(
    fake_daemon: Any, fake_media: FakeMedia, workspace: Path
) -> None:
    note = espeak_wav("deploy on friday")
    (workspace / "note.wav").write_bytes(note)
    fake_media.expect_audio(note, "deploy on friday")
    script = [
        {
            "toolCalls": [
                {"id": "i1", "name": "image_generate", "arguments": {"prompt": "a red square"}}
            ]
        },
        {
            "toolCalls": [
                {"id": "t1", "name": "tts", "arguments": {"text": "hello from gg"}},
                {"id": "s1", "name": "stt", "arguments": {"path": "note.wav"}},
            ]
        },
        {"text": "done"},
    ]
    d, _fm = fake_daemon(script, env=_media_env(fake_media))
    c = await d.connect("unix")
    caps = (await c.request("gg/system.info"))["capabilities"]
    assert {"media.image", "media.tts", "media.stt"} <= set(caps)
    sid = await new_session(c)
    run_id = await start(c, sid, "make media", interactive=True)
    ev = await until(c, run_id, "approval_requested")
    assert ev["approval"]["toolName"] == "image_generate" and "paid" in ev["approval"]["details"]
    await c.request(
        "gg/run.approve", {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True}
    )
    assert (await finish(c, run_id))["type"] == "run_completed"
    events = c.events(run_id=run_id)
    assert sum(e["type"] == "approval_requested" for e in events) == 1  # tts/stt do not ask
    done = {e["toolCallId"]: e for e in events if e["type"] == "tool_call_finish"}
    img = await c.request("gg/media.get", {"mediaId": done["i1"]["details"]["mediaId"]})
    assert base64.b64decode(img["data"]) == fake_media.image
    speech = await c.request("gg/media.get", {"mediaId": done["t1"]["details"]["mediaId"]})
    assert base64.b64decode(speech["data"])[:4] == b"RIFF"
    assert done["s1"]["output"] == "deploy on friday"
    await c.close()


async def test_the_cli_speaks_and_transcribes(
    fake_daemon: Any, fake_media: FakeMedia, workspace: Path
) -> None:
    d, _fm = fake_daemon([], env=_media_env(fake_media))
    env = {**d.env, "HOME": str(workspace.parent)}
    run = lambda *a: subprocess.run(  # noqa: E731
        [GG, *a], capture_output=True, text=True, env=env, cwd=workspace, timeout=60
    )
    out = run("media", "tts", "tests are green", "-o", "green.wav")
    assert out.returncode == 0, out.stderr
    audio = (workspace / "green.wav").read_bytes()
    assert audio[:4] == b"RIFF"
    fake_media.expect_audio(audio, "tests are green")
    out = run("media", "stt", "green.wav")
    assert out.returncode == 0 and out.stdout.strip() == "tests are green", out.stderr


async def test_without_endpoints_the_tools_are_absent_and_the_cli_names_the_setting(
    fake_daemon: Any, workspace: Path
) -> None:
    d, _fm = fake_daemon([])
    c = await d.connect("unix")
    caps = (await c.request("gg/system.info"))["capabilities"]
    assert not [x for x in caps if x.startswith("media.")]
    await c.close()
    env = {**d.env, "HOME": str(workspace.parent)}
    out = subprocess.run(
        [GG, "media", "image", "a cat"],
        capture_output=True,
        text=True,
        env=env,
        cwd=workspace,
        timeout=60,
    )
    assert out.returncode != 0 and "GG_IMAGE_BASE_URL" in out.stderr
    assert "Traceback" not in out.stderr
