"""Images in the web UI: paste and drop into the composer, thumbnails in the message (fetched by id
with gg/image.get), the bytes in the model's request, a large picture scaled down in the page."""

from __future__ import annotations

import base64
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, wait_phase

pytestmark = pytest.mark.browser

# Builds a File from base64 and hands it to the page the way a paste or a drop does.
_GIVE = """([kind, name, type, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, { type }));
  if (kind === "paste") {
    const box = document.querySelector("textarea");
    box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
  } else {
    const form = document.querySelector("form.composer");
    form.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
    form.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }
}"""


# The read tool's card shows the 90 px wide picture it returned.
READ_THUMB = (
    "() => { const i = document.querySelector('.tool-card [data-testid=msg-image]');"
    " return i && i.complete && i.naturalWidth === 90; }"
)


def encoded(img: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt)
    return buf.getvalue()


def give(page: Any, kind: str, name: str, mime: str, data: bytes) -> None:
    page.evaluate(_GIVE, [kind, name, mime, base64.b64encode(data).decode()])


def sent_images(body: dict[str, Any]) -> list[tuple[str, bytes]]:
    """(mime, bytes) of each image_url part of the last user message of a request."""
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    out = []
    for part in user["content"]:
        if part["type"] == "image_url":
            head, _, data = part["image_url"]["url"].partition(",")
            out.append((head[5:].split(";")[0], base64.b64decode(data)))
    return out


def test_paste_and_drop_images_reach_the_model_and_show_as_thumbnails(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], gg_home: Path
) -> None:
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    # The fake model's provider takes images (its baseUrl comes from OPENAI_BASE_URL).
    (gg_home / "config.json").write_text(json.dumps({"providers": {"openai": {"images": True}}}))
    web = ggd_web([{"text": "A red square."}, {"text": "A noisy picture."}])
    page = open_ui(pages(), web)
    red = encoded(Image.new("RGB", (120, 80), (230, 20, 20)), "PNG")
    give(page, "paste", "", "image/png", red)  # a screenshot pasted from the clipboard
    page.get_by_test_id("attachment-thumb").wait_for()
    box = page.get_by_label("Prompt")
    box.fill("what is this?")
    box.press("Enter")
    wait_phase(page, "completed")
    assert page.get_by_test_id("attachments").count() == 0  # sent: the composer is empty again
    thumb = page.get_by_test_id("msg-image").first
    thumb.wait_for()
    page.wait_for_function(
        "() => { const i = document.querySelector('[data-testid=msg-image]');"
        " return i && i.complete && i.naturalWidth === 120 && i.naturalHeight === 80; }"
    )
    assert sent_images(web.model.requests[0]) == [("image/png", red)]
    # A BMP is refused in the page; a 4 MB photo is scaled in the page to fit one message.
    give(page, "drop", "old.bmp", "image/bmp", encoded(Image.new("RGB", (8, 8)), "BMP"))
    error = page.get_by_test_id("attachment-error")
    error.wait_for()
    assert "old.bmp: not a PNG, JPEG, WebP or GIF image" in error.inner_text()
    noisy = encoded(Image.frombytes("RGB", (1400, 1000), os.urandom(1400 * 1000 * 3)), "PNG")
    assert len(noisy) > 2_900_000
    give(page, "drop", "photo.png", "image/png", noisy)
    page.get_by_test_id("attachment-thumb").wait_for()
    screenshot(page, "images-composer")
    box.fill("and this?")
    box.press("Enter")
    # The second answer on the page (the first run's "completed" footer says nothing about it).
    page.get_by_text("A noisy picture.").wait_for()
    wait_phase(page, "completed")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=msg-image]')]"
        ".filter((i) => i.complete && i.naturalWidth > 0 && i.src.startsWith('blob:')).length === 2"
    )
    ((mime, data),) = sent_images(web.model.requests[1])
    assert mime == "image/jpeg"
    assert Image.open(io.BytesIO(data)).size == (1400, 1000)
    # History: the second request still carries the first picture.
    first_user = next(m for m in web.model.requests[1]["messages"] if m["role"] == "user")
    assert first_user["content"][1]["image_url"]["url"].endswith(base64.b64encode(red).decode())
    screenshot(page, "images-conversation")
    # A reload draws the thumbnails from the session (refs in the snapshot, bytes by id).
    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=msg-image]')]"
        ".filter((i) => i.complete && i.naturalWidth > 0).length === 2"
    )
    srcs = page.eval_on_selector_all("[data-testid=msg-image]", "els => els.map(e => e.src)")
    assert all(s.startswith("blob:") for s in srcs), srcs


def test_a_picture_read_by_the_model_shows_in_its_tool_card(
    ggd_web: Callable[..., WebDaemon],
    pages: Callable[..., PageWatch],
    gg_home: Path,
    workspace: Path,
) -> None:
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(json.dumps({"providers": {"openai": {"images": True}}}))
    (workspace / "diagram.png").write_bytes(encoded(Image.new("RGB", (90, 60), (0, 160, 0)), "PNG"))
    script = [
        {"toolCalls": [{"name": "read", "arguments": {"path": "diagram.png"}}]},
        {"text": "It is green."},
    ]
    web = ggd_web(script)
    page = open_ui(pages(), web)
    box = page.get_by_label("Prompt")
    box.fill("what colour is diagram.png?")
    box.press("Enter")
    wait_phase(page, "completed")
    page.wait_for_function(READ_THUMB)
    screenshot(page, "images-read-tool")
    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.wait_for_function(READ_THUMB)  # from the stored tool message's images
