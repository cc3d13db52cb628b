"""Images from the CLI: `--image`, `/image`, a dropped path and `/paste`, to the fake model."""

from __future__ import annotations

import base64
import io
import json
import os
import stat
from typing import Any

import pytest
from PIL import Image

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(120)


def png(width: int, height: int, color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


def with_images(env: CliEnv, images: Any = True) -> None:
    """The fake model's provider takes images (config `images`)."""
    env.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    entry = {"baseUrl": env.model.base_url, "images": images}
    (env.home / "config.json").write_text(json.dumps({"providers": {"openai": entry}}))


def sent_images(request: dict[str, Any]) -> list[bytes]:
    """The bytes of every image_url part in a request's user messages."""
    out = []
    for m in request["messages"]:
        if m["role"] == "user" and isinstance(m["content"], list):
            for part in m["content"]:
                if part["type"] == "image_url":
                    out.append(base64.b64decode(part["image_url"]["url"].partition(",")[2]))
    return out


@pytest.mark.parametrize("mode", [[], ["--no-daemon"]], ids=["daemon", "no-daemon"])
def test_image_flag_sends_the_picture_with_the_prompt(real_env: CliEnv, mode: list[str]) -> None:
    with_images(real_env)
    shot = png(30, 20, (250, 0, 0))
    (real_env.ws / "shot.png").write_bytes(shot)
    real_env.model.add_steps([{"text": "It is red."}])
    r = real_env.run(*mode, "-p", "what colour?", "--image", "shot.png")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "It is red.\n"
    (request,) = real_env.model.requests
    user = [m for m in request["messages"] if m["role"] == "user"][-1]
    assert user["content"][0] == {"type": "text", "text": "what colour?"}
    assert sent_images(request) == [shot]


def test_image_flag_errors_are_clear(real_env: CliEnv) -> None:
    r = real_env.run("--no-daemon", "-p", "hi", "--image", "missing.png")
    assert r.returncode == 2
    assert r.stderr == "gg: --image: no such image file: missing.png\n"
    (real_env.ws / "notes.txt").write_text("x")
    r = real_env.run("--no-daemon", "-p", "hi", "--image", "notes.txt")
    assert r.returncode == 2 and "not a PNG, JPEG, WebP or GIF" in r.stderr
    # The fake model takes no images by default: refused before anything is sent.
    (real_env.ws / "shot.png").write_bytes(png(4, 4, (0, 0, 0)))
    r = real_env.run("--no-daemon", "-p", "hi", "--image", "shot.png")
    assert r.returncode != 0
    assert "model 'openai:fake-model' takes no images" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert real_env.model.requests == []


def test_interactive_image_command_dropped_path_and_paste(real_env: CliEnv) -> None:
    with_images(real_env)
    red, green, blue = png(8, 8, (255, 0, 0)), png(9, 9, (0, 255, 0)), png(10, 10, (0, 0, 255))
    (real_env.ws / "red.png").write_bytes(red)
    folder = real_env.root / "my shots"
    folder.mkdir()
    (folder / "green.png").write_bytes(green)
    # A clipboard reader on PATH (the machine has no display): prints the copied PNG.
    tools = real_env.root / "bin"
    tools.mkdir()
    (real_env.root / "clip.png").write_bytes(blue)
    reader = tools / "wl-paste"
    reader.write_text(f"#!/bin/sh\nexec cat '{real_env.root / 'clip.png'}'\n")
    reader.chmod(reader.stat().st_mode | stat.S_IXUSR)
    real_env.env["PATH"] = f"{tools}{os.pathsep}{real_env.env['PATH']}"
    real_env.model.add_steps([{"text": "one red"}, {"text": "green and blue"}, {"text": "none"}])
    p = real_env.pty()
    p.expect("gg> ")
    p.send("/image red.png\r")
    p.expect("attached to the next message: red.png")
    p.expect("gg> ")
    p.send("what is this?\r")
    p.expect("one red")
    p.expect("gg> ")
    p.send(f"'{folder / 'green.png'}'\r")  # what a terminal types for a dropped file
    p.expect("attached green.png; now type the message")
    p.expect("gg> ")
    p.send("/paste\r")
    p.expect("attached to the next message: green.png, clipboard image")
    p.expect("gg> ")
    p.send("and these?\r")
    p.expect("green and blue")
    p.expect("gg> ")
    p.send("plain text naming red.png\r")  # a path inside a sentence is text, not an image
    p.expect("none")
    p.expect("gg> ")
    p.send("/image nope.png\r")
    p.expect("gg: /image: no such image file: nope.png")
    p.expect("gg> ")
    p.send("\x04")
    assert p.wait() == 0
    first, second, third = real_env.model.requests
    assert sent_images(first) == [red]
    # History keeps earlier images: the red one, then this turn's two.
    assert sent_images(second) == [red, green, blue]
    assert sent_images(third) == [red, green, blue]
    last = [m for m in third["messages"] if m["role"] == "user"][-1]
    assert last["content"] == "plain text naming red.png"


def test_the_demo_model_refuses_images_and_says_what_to_do(cli_env: CliEnv) -> None:
    (cli_env.ws / "shot.png").write_bytes(png(4, 4, (0, 0, 0)))
    r = cli_env.run("--no-daemon", "-p", "hi", "--image", "shot.png")
    assert r.returncode != 0
    assert "the offline demo model takes no images" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
