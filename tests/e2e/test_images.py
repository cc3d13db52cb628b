"""Images in: gg/run.start images reach the model as OpenAI image_url parts through a real ggd.

The fake Chat Completions server records each request body; the tests decode the data URLs it
received, so the bytes, the downscaling and the part order are checked where the model sees them.
"""

from __future__ import annotations

import base64
import io
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.fakes.fake_openai import FakeModel

from .daemon import Daemon, daemon_env
from .rpc_client import RpcClient, RpcError
from .runs_helpers import finish, finished_tools, new_session, start


def png(width: int, height: int, color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A real PNG of a size and colour."""
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


def jpeg(width: int, height: int) -> bytes:
    """A real JPEG."""
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (20, 120, 220)).save(buf, "JPEG")
    return buf.getvalue()


def write_config(home: Path, fm: FakeModel, images: Any) -> None:
    """A provider `fake` at the fake server, with an `images` setting (omitted when None)."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    entry: dict[str, Any] = {"baseUrl": fm.base_url, "apiKey": "test-key"}
    if images is not None:
        entry["images"] = images
    config = {"model": "fake:fake-model", "providers": {"fake": entry}}
    (home / "config.json").write_text(json.dumps(config))


def decode_url(url: str) -> tuple[str, bytes]:
    """(mime, bytes) of a data URL."""
    head, _, data = url.partition(",")
    assert head.startswith("data:") and head.endswith(";base64"), head
    return head[5:-7], base64.b64decode(data)


def user_parts(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The content-part lists of a request's user messages."""
    return [
        m["content"]
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
    ]


async def run_daemon(home: Path, workspace: Path, fm: FakeModel, images: Any) -> Daemon:
    write_config(home, fm, images)
    return Daemon(home, workspace, daemon_env(home)).start()


async def test_prompt_images_reach_the_model_stored_once_and_fetchable(
    gg_home: Path, workspace: Path
) -> None:
    big = png(3000, 1500)  # downscaled to 2048 on its long side
    small = jpeg(64, 48)
    (workspace / "shot.png").write_bytes(big)
    with FakeModel([{"text": "A red rectangle and a blue one."}]) as fm:
        d = await run_daemon(gg_home, workspace, fm, True)
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                images = [
                    {"path": "shot.png"},
                    {"data": base64.b64encode(small).decode(), "mimeType": "image/jpeg"},
                    {"path": str(workspace / "shot.png")},  # the same picture again
                ]
                run_id = await start(c, sid, "what is in these?", images=images)
                end = await finish(c, run_id, timeout=60)
                assert end["type"] == "run_completed", end
                started = next(e for e in c.events(run_id=run_id) if e["type"] == "run_started")
                refs = started["images"]
                snap = await c.request("gg/session.get", {"sessionId": sid})
                fetched = await c.request("gg/image.get", {"imageId": refs[1]["id"]})
                bad = await c.raw_request("gg/image.get", {"imageId": "img_" + "0" * 64})
            finally:
                await c.close()
        finally:
            d.stop()
    # The request: the prompt's text, then each image as an image_url part, in order.
    (parts,) = user_parts(fm.requests[0])
    assert parts[0] == {"type": "text", "text": "what is in these?"}
    assert [p["type"] for p in parts[1:]] == ["image_url"] * 3
    mime0, data0 = decode_url(parts[1]["image_url"]["url"])
    assert mime0 == "image/png"
    assert Image.open(io.BytesIO(data0)).size == (2048, 1024)
    assert decode_url(parts[2]["image_url"]["url"]) == ("image/jpeg", small)
    assert parts[3] == parts[1]
    # Refs: id by content, size in pixels; the repeated picture is one stored file.
    assert [(r["width"], r["height"]) for r in refs] == [(2048, 1024), (64, 48), (2048, 1024)]
    assert refs[0]["id"] == refs[2]["id"] and refs[0]["id"] != refs[1]["id"]
    folder = gg_home / "images"
    files = sorted(folder.iterdir())
    assert len(files) == 2
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    # The session's JSONL user entry refers to the images (never holds their bytes).
    session = next((gg_home / "sessions").glob("s_*.jsonl"))
    entries = [json.loads(x) for x in session.read_text().splitlines()[1:]]
    user = next(e["data"] for e in entries if e["data"].get("role") == "user")
    assert user["images"] == refs
    assert len(session.read_bytes()) < 4096
    # Clients: the snapshot's message carries the refs; gg/image.get the bytes.
    msg = next(m for m in snap["messages"] if m["role"] == "user")
    assert msg["images"] == refs
    assert fetched["mimeType"] == "image/jpeg"
    assert base64.b64decode(fetched["data"]) == small
    assert bad["error"]["data"]["code"] == "invalid_params"


async def expect_refused(
    c: RpcClient, sid: str, images: list[dict[str, Any]], model: str = "fake:other-model"
) -> str:
    with pytest.raises(RpcError) as info:
        await start(c, sid, "look", images=images, model=model)
    assert info.value.symbol == "invalid_params", info.value
    return str(info.value.message)


async def test_bad_images_and_a_model_without_images_are_clear_errors(
    gg_home: Path, workspace: Path
) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buf, "BMP")
    (workspace / "old.bmp").write_bytes(buf.getvalue())
    (workspace / "huge.png").write_bytes(b"\x89PNG" + b"\0" * (21 * 1024 * 1024))
    with FakeModel([{"text": "unused"}], models=["fake-model", "other-model"]) as fm:
        d = await run_daemon(gg_home, workspace, fm, ["other-model"])
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                ok = [{"data": base64.b64encode(png(4, 4)).decode()}]
                no_model = await expect_refused(c, sid, ok, model="fake:fake-model")
                bmp = await expect_refused(c, sid, [{"path": "old.bmp"}])
                huge = await expect_refused(c, sid, [{"path": "huge.png"}])
                junk = await expect_refused(c, sid, [{"data": base64.b64encode(b"hi").decode()}])
                not_b64 = await expect_refused(c, sid, [{"data": "%%%"}])
                missing = await expect_refused(c, sid, [{"path": "nope.png"}])
                both = await expect_refused(c, sid, [{"path": "a.png", "data": "AAAA"}])
                snap = await c.request("gg/session.get", {"sessionId": sid})
            finally:
                await c.close()
        finally:
            d.stop()
    assert "takes no images" in no_model and "providers.fake" in no_model, no_model
    assert "BMP images are not supported" in bmp, bmp
    assert "images[0]" in huge and "over the limit of 20.0 MiB" in huge, huge
    assert "not an image" in junk, junk
    assert "not valid base64" in not_b64, not_b64
    assert "not found: 'nope.png'" in missing, missing
    assert "either path or data" in both, both
    assert fm.requests == [] and snap["messages"] == []  # nothing ran, nothing was saved


async def test_read_of_an_image_follows_the_tool_result_as_a_user_image(
    gg_home: Path, workspace: Path
) -> None:
    picture = png(40, 30, (10, 200, 10))
    (workspace / "diagram.png").write_bytes(picture)
    script = [
        {"toolCalls": [{"name": "read", "arguments": {"path": "diagram.png"}}]},
        {"text": "It is green."},
    ]
    with FakeModel(script) as fm:
        d = await run_daemon(gg_home, workspace, fm, True)
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                run_id = await start(c, sid, "what colour is diagram.png?")
                end = await finish(c, run_id, timeout=60)
                (result,) = finished_tools(c, run_id).values()
            finally:
                await c.close()
        finally:
            d.stop()
    assert end["type"] == "run_completed", end
    assert not result.get("isError"), result
    second = fm.requests[1]["messages"]
    tool_at = next(i for i, m in enumerate(second) if m["role"] == "tool")
    assert "PNG 40x30" in second[tool_at]["content"]
    after = second[tool_at + 1]
    assert after["role"] == "user"
    assert after["content"][0]["type"] == "text" and "read" in after["content"][0]["text"]
    assert decode_url(after["content"][1]["image_url"]["url"]) == ("image/png", picture)


async def test_read_of_an_image_for_a_model_without_images_says_so(
    gg_home: Path, workspace: Path
) -> None:
    (workspace / "diagram.png").write_bytes(png(4, 4))
    script = [
        {"toolCalls": [{"name": "read", "arguments": {"path": "diagram.png"}}]},
        {"text": "I cannot see it."},
    ]
    with FakeModel(script) as fm:
        d = await run_daemon(gg_home, workspace, fm, False)
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                run_id = await start(c, sid, "what colour is diagram.png?")
                end = await finish(c, run_id, timeout=60)
                (result,) = finished_tools(c, run_id).values()
            finally:
                await c.close()
        finally:
            d.stop()
    assert end["type"] == "run_completed", end
    assert result["isError"] is True
    second = fm.requests[1]["messages"]
    tool = next(m for m in second if m["role"] == "tool")
    assert "takes no images" in tool["content"]
    assert user_parts(fm.requests[1]) == []


@pytest.mark.parametrize("kind", ["openai-responses", "gemini", "anthropic"])
async def test_images_reach_each_native_kind_as_its_own_image_block(
    gg_home: Path, workspace: Path, kind: str
) -> None:
    from tests.fakes.fake_anthropic import FakeAnthropic
    from tests.fakes.fake_gemini import FakeGemini
    from tests.fakes.fake_responses import FakeResponses

    fakes = {"openai-responses": FakeResponses, "gemini": FakeGemini, "anthropic": FakeAnthropic}
    fake = fakes[kind]
    shot, diagram = png(20, 10, (255, 0, 0)), png(30, 15, (0, 0, 255))
    (workspace / "diagram.png").write_bytes(diagram)
    script = [
        # Reasoning on the tool step: Gemini's fake wants its thought signature sent back.
        {"toolCalls": [{"name": "read", "arguments": {"path": "diagram.png"}}], "thinking": "look"},
        {"text": "Red, then blue."},
    ]
    with fake(script) as fm:
        gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
        entry = {"kind": kind, "baseUrl": fm.base_url, "apiKey": "k", "models": ["fake-model"]}
        config = {"model": "native:fake-model", "providers": {"native": entry}}  # images by kind
        (gg_home / "config.json").write_text(json.dumps(config))
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                images = [{"data": base64.b64encode(shot).decode(), "mimeType": "image/png"}]
                run_id = await start(c, sid, "colours?", images=images)
                end = await finish(c, run_id, timeout=60)
            finally:
                await c.close()
        finally:
            d.stop()
    assert end["type"] == "run_completed", (end, fm.mismatches)
    first, second = fm.requests
    b64 = base64.b64encode(shot).decode()
    b64_diagram = base64.b64encode(diagram).decode()
    if kind == "openai-responses":
        (prompt,) = [i for i in first["input"] if i.get("role") == "user"]
        assert prompt["content"][1]["type"] == "input_image"
        assert prompt["content"][1]["image_url"] == f"data:image/png;base64,{b64}"
        # The picture `read` returned: a user item after the function_call_output.
        kinds = [i.get("type") or i.get("role") for i in second["input"]]
        out_at = kinds.index("function_call_output")
        after = second["input"][out_at + 1]
        assert after["role"] == "user"
        assert after["content"][-1]["image_url"] == f"data:image/png;base64,{b64_diagram}"
    elif kind == "anthropic":
        block = {"type": "base64", "media_type": "image/png"}
        (prompt,) = [m for m in first["messages"] if m["role"] == "user"]
        # (a cache_control breakpoint may sit on the last block: not part of the image)
        shown = {k: v for k, v in prompt["content"][1].items() if k != "cache_control"}
        assert shown == {"type": "image", "source": {**block, "data": b64}}
        # The picture `read` returned: in the user turn of the tool result, after it.
        turn = [m for m in second["messages"] if m["role"] == "user"][-1]["content"]
        turn = [{k: v for k, v in b.items() if k != "cache_control"} for b in turn]
        assert turn[0]["type"] == "tool_result"
        assert {"type": "image", "source": {**block, "data": b64_diagram}} in turn[1:]
    else:
        parts = [p for c in first["contents"] if c["role"] == "user" for p in c["parts"]]
        assert {"inlineData": {"mimeType": "image/png", "data": b64}} in parts
        later = [p for c in second["contents"] if c["role"] == "user" for p in c["parts"]]
        responded = next(i for i, p in enumerate(later) if "functionResponse" in p)
        assert {"inlineData": {"mimeType": "image/png", "data": b64_diagram}} in later[responded:]


async def test_a_later_turn_on_a_model_without_images_gets_a_note_not_a_silent_drop(
    gg_home: Path, workspace: Path
) -> None:
    script = [{"text": "A red dot."}, {"text": "I only read the note."}]
    with FakeModel(script, models=["fake-model", "other-model"]) as fm:
        d = await run_daemon(gg_home, workspace, fm, ["fake-model"])
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                images = [{"data": base64.b64encode(png(5, 5)).decode()}]
                end = await finish(c, await start(c, sid, "look", images=images), timeout=60)
                assert end["type"] == "run_completed", end
                run = await start(c, sid, "and now?", model="fake:other-model")
                end = await finish(c, run, timeout=60)
                assert end["type"] == "run_completed", end
            finally:
                await c.close()
        finally:
            d.stop()
    assert len(user_parts(fm.requests[0])) == 1
    first_user = next(m for m in fm.requests[1]["messages"] if m["role"] == "user")
    assert first_user["content"].startswith("look\n\n[image img_")
    assert first_user["content"].endswith("left out: this model takes no images]")
