"""Media in the web UI: a generated image is shown inline and speech gets a player, fetched by id
through gg/media.get (never a path), live and after a reload of the session."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.fakes.fake_media import FakeMedia, png

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, send, wait_phase

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing"),
]


@pytest.fixture
def fake_media() -> Iterator[FakeMedia]:
    f = FakeMedia()
    f.image = png(64, 48, (20, 120, 220))
    yield f
    f.close()


def test_an_image_and_speech_show_inline_and_survive_a_reload(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], fake_media: FakeMedia
) -> None:
    env = {f"GG_{k}_BASE_URL": fake_media.base_url for k in ("IMAGE", "TTS")}
    script: list[dict[str, Any]] = [
        {
            "toolCalls": [
                {"id": "i1", "name": "image_generate", "arguments": {"prompt": "a blue box"}}
            ]
        },
        {"toolCalls": [{"id": "t1", "name": "tts", "arguments": {"text": "the build passed"}}]},
        {"text": "Here is your picture and the announcement."},
    ]
    web = ggd_web(script, env=env)
    page = open_ui(pages(), web)
    send(page, "make a picture and say it")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    card.get_by_role("button", name="Allow", exact=False).first.click()
    wait_phase(page, "completed")
    img = page.get_by_test_id("media-image").first
    img.wait_for()
    page.wait_for_function(
        "() => { const i = document.querySelector('[data-testid=media-image]');"
        " return i && i.complete && i.naturalWidth === 64 && i.naturalHeight === 48; }"
    )
    assert img.get_attribute("src").startswith("blob:")  # bytes by id, no path, no data: URL
    page.get_by_test_id("media-audio").first.wait_for()
    screenshot(page, "media-inline")
    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.get_by_test_id("media-image").first.wait_for()
    page.get_by_test_id("media-audio").first.wait_for()
