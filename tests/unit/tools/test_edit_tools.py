"""edit and write: exact matches, CRLF, atomic writes, modes, diffs, previews, approval."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ggd.tools import ToolContext, ToolError
from ggd.tools.edit_tools import EditTool, WriteTool


def _edits(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"oldText": a, "newText": b} for a, b in pairs]


async def test_edit_applies_in_order_and_reports_a_diff(ws: Path, ctx: ToolContext) -> None:
    f = ws / "app.py"
    f.write_text("a = 1\nb = 2\nc = 3\n")
    args = {"path": "app.py", "edits": _edits(("a = 1", "a = 10"), ("a = 10\nb", "a = 10\nbb"))}
    r = await EditTool().run(args, ctx)
    assert f.read_text() == "a = 10\nbb = 2\nc = 3\n"
    assert r.output == "Edited app.py: 2 edits applied (+2 -2 lines)."
    assert r.details and "-a = 1\n" in r.details["diff"] and "+bb = 2\n" in r.details["diff"]
    assert r.details["diff"].startswith("--- a/app.py\n+++ b/app.py\n")


async def test_edit_needs_exactly_one_match(ws: Path, ctx: ToolContext) -> None:
    f = ws / "x.txt"
    f.write_text("dup\ndup\nonce\n")
    with pytest.raises(ToolError, match=r"0 matches"):
        await EditTool().run({"path": "x.txt", "edits": _edits(("nope", "y"))}, ctx)
    with pytest.raises(ToolError, match=r"matches 2 times"):
        await EditTool().run({"path": "x.txt", "edits": _edits(("dup", "y"))}, ctx)
    # A failing later edit leaves the file untouched (all or nothing).
    with pytest.raises(ToolError, match=r"edit #2"):
        await EditTool().run({"path": "x.txt", "edits": _edits(("once", "1"), ("zz", "2"))}, ctx)
    assert f.read_text() == "dup\ndup\nonce\n"
    with pytest.raises(ToolError, match="not found"):
        await EditTool().run({"path": "missing.txt", "edits": _edits(("a", "b"))}, ctx)
    with pytest.raises(ToolError, match="non-empty list"):
        await EditTool().run({"path": "x.txt", "edits": []}, ctx)


async def test_edit_keeps_crlf_line_endings(ws: Path, ctx: ToolContext) -> None:
    f = ws / "win.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await EditTool().run({"path": "win.txt", "edits": _edits(("one\ntwo", "one\n2\nextra"))}, ctx)
    assert f.read_bytes() == b"one\r\n2\r\nextra\r\nthree\r\n"


async def test_edit_keeps_mode_and_leaves_no_temp_files(ws: Path, ctx: ToolContext) -> None:
    f = ws / "run.sh"
    f.write_text("echo old\n")
    f.chmod(0o750)
    await EditTool().run({"path": "run.sh", "edits": _edits(("old", "new"))}, ctx)
    assert f.read_text() == "echo new\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o750
    assert sorted(p.name for p in ws.iterdir()) == ["run.sh"]


async def test_edit_through_an_inside_symlink_keeps_the_link(ws: Path, ctx: ToolContext) -> None:
    (ws / "real.txt").write_text("v1\n")
    (ws / "alias.txt").symlink_to("real.txt")
    await EditTool().run({"path": "alias.txt", "edits": _edits(("v1", "v2"))}, ctx)
    assert (ws / "alias.txt").is_symlink() and (ws / "real.txt").read_text() == "v2\n"


def test_edit_describe(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.txt").write_text("hello\n")
    info = EditTool().describe({"path": "a.txt", "edits": _edits(("hello", "bye"))}, ctx)
    assert (info.risk, info.needs_approval) == ("normal", True)
    assert info.details and "-hello\n+bye\n" in info.details
    assert EditTool().write_paths({"path": "a.txt"}, ctx) == [(ws / "a.txt").resolve()]
    agent = ws / ".gg" / "agent"
    agent.mkdir(parents=True)
    (agent / "notes.md").write_text("todo\n")
    info = EditTool().describe({"path": ".gg/agent/notes.md", "edits": _edits(("todo", "x"))}, ctx)
    assert not info.needs_approval
    info = EditTool().describe({"path": "../a.txt", "edits": _edits(("a", "b"))}, ctx)
    assert info.risk == "dangerous" and info.needs_approval
    assert EditTool().write_paths({"path": "../a.txt"}, ctx) == []


async def test_write_creates_parents_and_overwrites_keeping_mode(
    ws: Path, ctx: ToolContext
) -> None:
    r = await WriteTool().run({"path": "deep/er/new.txt", "content": "hi\n"}, ctx)
    f = ws / "deep" / "er" / "new.txt"
    assert f.read_text() == "hi\n" and r.details and r.details["created"]
    assert r.output == "Created deep/er/new.txt (3 bytes)."
    f.chmod(0o600)
    r = await WriteTool().run({"path": "deep/er/new.txt", "content": "again"}, ctx)
    assert f.read_text() == "again" and stat.S_IMODE(f.stat().st_mode) == 0o600
    assert r.output.startswith("Overwrote") and r.details and not r.details["created"]
    with pytest.raises(ToolError, match="outside the workspace"):
        await WriteTool().run({"path": "../evil.txt", "content": "x"}, ctx)
    assert not (ws.parent / "evil.txt").exists()
    with pytest.raises(ToolError, match="directory"):
        await WriteTool().run({"path": "deep", "content": "x"}, ctx)


def test_write_describe_preview_and_action(ws: Path, ctx: ToolContext) -> None:
    content = "".join(f"l{i}\n" for i in range(30))
    info = WriteTool().describe({"path": "n.txt", "content": content}, ctx)
    assert info.extra["action"] == "create" and info.summary == "write n.txt (create)"
    assert info.details and info.details.splitlines()[:2] == ["l0", "l1"]
    assert info.details.splitlines()[-1] == "[... 10 more lines]"
    assert (info.risk, info.needs_approval) == ("normal", True)
    (ws / "n.txt").write_text("old")
    assert WriteTool().describe({"path": "n.txt", "content": "x"}, ctx).extra["action"] == (
        "overwrite"
    )
    info = WriteTool().describe({"path": ".gg/agent/plan.md", "content": "x"}, ctx)
    assert not info.needs_approval
    info = WriteTool().describe({"path": "/etc/x", "content": "x"}, ctx)
    assert info.risk == "dangerous"


async def test_write_overwrite_approval_shows_a_diff_not_the_whole_file(
    ws: Path, ctx: ToolContext
) -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    (ws / "big.txt").write_text(old)
    new = old.replace("line 50\n", "line fifty\n")
    info = WriteTool().describe({"path": "big.txt", "content": new}, ctx)
    assert info.details is not None
    lines = info.details.splitlines()
    assert lines[:2] == ["--- a/big.txt", "+++ b/big.txt"]
    assert "-line 50" in lines and "+line fifty" in lines
    assert "line 0" not in info.details and len(lines) < 15
    done = await WriteTool().run({"path": "big.txt", "content": new}, ctx)
    assert done.details and done.details["diff"] == info.details
    same = WriteTool().describe({"path": "big.txt", "content": new}, ctx)
    assert same.details == "(no change: big.txt already has this content)"
    # Nothing to approve, and running it changes nothing (issue 32 item 14).
    assert not same.needs_approval and same.extra["action"] == "unchanged"
    again = await WriteTool().run({"path": "big.txt", "content": new}, ctx)
    assert again.output.startswith("Unchanged big.txt") and again.details
    assert again.details["unchanged"] is True
    (ws / "blob.bin").write_bytes(b"\x00\x01binary")
    binary = WriteTool().describe({"path": "blob.bin", "content": "text"}, ctx)
    assert binary.details == "text"
