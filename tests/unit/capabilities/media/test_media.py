"""The media service against the fake endpoint: wire format, limits and confinement."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ggd.app.media import MediaStore
from ggd.capabilities.media.client import AUDIO_LIMIT, TEXT_LIMIT, MediaRequestError
from ggd.capabilities.media.config import EndpointConfig, resolve
from ggd.capabilities.media.service import MediaService
from tests.fakes.fake_media import FakeMedia, espeak_wav

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")


@pytest.fixture
def fake() -> Iterator[FakeMedia]:
    f = FakeMedia()
    yield f
    f.close()


@pytest.fixture
def svc(fake: FakeMedia, tmp_path: Path) -> MediaService:
    env = {
        "GG_IMAGE_BASE_URL": fake.base_url,
        "GG_TTS_BASE_URL": fake.base_url,
        "GG_STT_BASE_URL": fake.base_url,
        "GG_IMAGE_API_KEY": "sk-test-123456",
    }
    eps = {k: resolve(k, EndpointConfig(), env) for k in ("image", "tts", "stt")}
    return MediaService(tmp_path / "home", eps)


async def test_an_image_is_generated_stored_owner_only_and_authenticated(
    svc: MediaService, fake: FakeMedia
) -> None:
    item = await svc.image("a red square", "256x256")
    _, data = svc.store.read(item.id)
    assert data == fake.image and item.mime == "image/png"
    assert oct(svc.store.path(item.id).stat().st_mode & 0o777) == "0o600"
    req = fake.requests[-1]
    assert req["json"]["prompt"] == "a red square" and req["json"]["size"] == "256x256"
    assert req["headers"]["Authorization"] == "Bearer sk-test-123456"


@needs_espeak
async def test_speech_round_trips_through_a_multipart_transcription(
    svc: MediaService, fake: FakeMedia
) -> None:
    item = await svc.tts("the build passed", "nova")
    _, audio = svc.store.read(item.id)
    assert audio[:4] == b"RIFF" and item.mime == "audio/wav"
    fake.expect_audio(audio, "the build passed")
    assert await svc.stt_media(item.id) == "the build passed"
    up = fake.requests[-1]
    assert up["model"] == "whisper-1" and up["filename"].endswith(".wav")


async def test_limits_and_confinement_are_clear_errors(svc: MediaService, tmp_path: Path) -> None:
    with pytest.raises(MediaRequestError, match="1 MiB"):
        await svc.tts("x" * (TEXT_LIMIT + 1))
    with pytest.raises(MediaRequestError, match="size must be"):
        await svc.image("hi", "9x9")
    ws = tmp_path / "ws"
    ws.mkdir()
    big = ws / "long.wav"
    with big.open("wb") as fh:
        fh.truncate(AUDIO_LIMIT + 10)
    with pytest.raises(MediaRequestError, match="over 25 MiB"):
        await svc.stt_path("long.wav", ws)
    (tmp_path / "outside.wav").write_bytes(b"RIFF")
    with pytest.raises(MediaRequestError, match="inside the workspace"):
        await svc.stt_path(str(tmp_path / "outside.wav"), ws)
    (ws / "notes.txt").write_text("hi")
    with pytest.raises(MediaRequestError, match="not an audio file"):
        await svc.stt_path("notes.txt", ws)


async def test_an_endpoint_error_names_the_endpoint_not_the_key(
    svc: MediaService, fake: FakeMedia
) -> None:
    fake.fail_with = 429
    with pytest.raises(MediaRequestError) as err:
        await svc.image("hi")
    assert "429" in str(err.value) and fake.base_url in str(err.value)
    assert "sk-test" not in str(err.value)


async def test_nothing_configured_means_no_endpoint(tmp_path: Path) -> None:
    assert resolve("tts", EndpointConfig(), {"OPENAI_BASE_URL": "http://x"}) is None
    svc = MediaService(tmp_path, {"image": None, "tts": None, "stt": None})
    with pytest.raises(MediaRequestError, match="GG_IMAGE_BASE_URL"):
        await svc.image("hi")
    assert isinstance(svc.store, MediaStore)


def test_espeak_makes_real_audio() -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng missing")
    assert espeak_wav("hello")[:4] == b"RIFF"
