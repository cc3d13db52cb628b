"""CallToolResult -> ToolResult: text joined, media saved privately by id, errors, structure."""

from __future__ import annotations

import base64
from pathlib import Path

import mcp_types as types

from ggd.capabilities.mcp.results import convert, media_path

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def test_text_is_joined_and_images_are_saved_by_id(tmp_path: Path) -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="one"),
            types.ImageContent(
                type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png"
            ),
            types.TextContent(type="text", text="two"),
        ]
    )
    out = convert(tmp_path, "s", "t", result)
    assert not out.is_error
    (media,) = out.details["media"]  # type: ignore[index]
    assert out.output.startswith("one\n[image image/png") and out.output.endswith("\ntwo")
    assert media["id"] in out.output and str(tmp_path) not in out.output
    path = media_path(tmp_path, media["id"])
    assert path is not None and path.read_bytes() == PNG
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert media_path(tmp_path, "../etc") is None


def test_is_error_becomes_a_tool_error_and_structured_content_is_kept(tmp_path: Path) -> None:
    err = convert(tmp_path, "s", "t", types.CallToolResult(content=[], is_error=True))
    assert err.is_error and "t failed" in err.output
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="sum computed")],
        structured_content={"sum": 3},
    )
    out = convert(tmp_path, "s", "t", result)
    assert out.details["structuredContent"] == {"sum": 3}  # type: ignore[index]
    assert '"sum": 3' in out.output
    # Text that already is the structured content is not repeated.
    same = convert(
        tmp_path,
        "s",
        "t",
        types.CallToolResult(
            content=[types.TextContent(type="text", text='{"sum": 3}')],
            structured_content={"sum": 3},
        ),
    )
    assert same.output == '{"sum": 3}'
