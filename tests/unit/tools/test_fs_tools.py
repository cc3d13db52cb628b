"""read and list: paging, caps, binary refusal, the workspace path policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggd.tools import ToolContext, ToolError, builtin_tools
from ggd.tools.fs_tools import MAX_BYTES, MAX_ENTRIES, ListTool, ReadTool


def test_builtin_tools_names_and_schemas() -> None:
    tools = builtin_tools()
    assert [t.name for t in tools] == ["read", "list", "grep", "bash", "edit", "write"]
    props = {t.name: set(t.parameters["properties"]) for t in tools}
    assert props == {
        "read": {"path", "offset", "limit"},
        "list": {"path"},
        "grep": {"pattern", "path", "literal", "limit"},
        "bash": {"command", "timeout"},
        "edit": {"path", "edits"},
        "write": {"path", "content"},
    }
    assert {t.name for t in tools if t.parallel_safe} == {"read", "list", "grep"}
    for t in tools:
        assert t.spec()["function"]["name"] == t.name and t.description


async def test_read_numbers_lines_and_pages(ws: Path, ctx: ToolContext) -> None:
    (ws / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    r = await ReadTool().run({"path": "a.txt"}, ctx)
    assert r.output.splitlines()[0] == "     1\tline 1"
    assert r.output.splitlines()[-1] == "    10\tline 10"
    r = await ReadTool().run({"path": "a.txt", "offset": 3, "limit": 2}, ctx)
    assert r.output.splitlines() == [
        "     3\tline 3",
        "     4\tline 4",
        "[showing lines 3-4 of 10; call read with offset=5 to continue]",
    ]


async def test_read_caps_bytes_with_a_note(ws: Path, ctx: ToolContext) -> None:
    (ws / "big.txt").write_text("".join("x" * 1000 + "\n" for _ in range(200)))
    r = await ReadTool().run({"path": "big.txt"}, ctx)
    assert len(r.output.encode()) <= MAX_BYTES + 200
    last = r.output.splitlines()[-1]
    assert last.startswith("[showing lines 1-") and "offset=" in last


async def test_read_caps_lines_at_2000(ws: Path, ctx: ToolContext) -> None:
    (ws / "long.txt").write_text("".join(f"{i}\n" for i in range(3000)))
    r = await ReadTool().run({"path": "long.txt", "limit": 5000}, ctx)
    assert r.output.splitlines()[-1] == (
        "[showing lines 1-2000 of 3000; call read with offset=2001 to continue]"
    )


async def test_read_refuses_binary_dirs_and_missing(ws: Path, ctx: ToolContext) -> None:
    (ws / "bin.dat").write_bytes(b"abc\x00def")
    (ws / "d").mkdir()
    with pytest.raises(ToolError, match="binary"):
        await ReadTool().run({"path": "bin.dat"}, ctx)
    with pytest.raises(ToolError, match="directory"):
        await ReadTool().run({"path": "d"}, ctx)
    with pytest.raises(ToolError, match="not found"):
        await ReadTool().run({"path": "nope.txt"}, ctx)


async def test_paths_outside_the_workspace_are_refused(
    ws: Path, ctx: ToolContext, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (ws / "escape").symlink_to(tmp_path)
    for raw in ("../secret.txt", str(secret), "escape/secret.txt", "~/x"):
        with pytest.raises(ToolError, match="outside the workspace"):
            await ReadTool().run({"path": raw}, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await ListTool().run({"path": "escape"}, ctx)
    info = ReadTool().describe({"path": "../secret.txt"}, ctx)
    assert info.risk == "dangerous" and info.needs_approval


def test_read_only_tools_need_no_approval(ctx: ToolContext) -> None:
    for tool in builtin_tools()[:3]:
        args = {"path": "x", "pattern": "p"} if tool.name == "grep" else {"path": "x"}
        info = tool.describe(args, ctx)
        assert (info.risk, info.needs_approval) == ("read_only", False)


async def test_list_sorted_dirs_marked_git_skipped(ws: Path, ctx: ToolContext) -> None:
    for name in ("b.txt", "a.txt"):
        (ws / name).write_text("x")
    (ws / "src").mkdir()
    (ws / ".git").mkdir()
    (ws / ".env").write_text("x")
    r = await ListTool().run({}, ctx)
    assert r.output.splitlines() == [".env", "a.txt", "b.txt", "src/"]


async def test_list_caps_entries(ws: Path, ctx: ToolContext) -> None:
    for i in range(MAX_ENTRIES + 7):
        (ws / f"f{i:04}").touch()
    r = await ListTool().run({"path": "."}, ctx)
    lines = r.output.splitlines()
    assert len(lines) == MAX_ENTRIES + 1
    assert lines[-1] == "[... 7 more entries not shown]"


async def test_list_refuses_files_and_missing(ws: Path, ctx: ToolContext) -> None:
    (ws / "f").write_text("x")
    with pytest.raises(ToolError, match="not a directory"):
        await ListTool().run({"path": "f"}, ctx)
    with pytest.raises(ToolError, match="not found"):
        await ListTool().run({"path": "nope"}, ctx)


async def test_read_refuses_a_file_with_several_hard_links(
    tmp_path: Path, ws: Path, ctx: ToolContext
) -> None:
    import os

    outside = tmp_path / "id_key"
    outside.write_text("PRIVATE KEY\n")
    os.link(outside, ws / "notes.txt")
    with pytest.raises(ToolError, match="several hard links") as exc:
        await ReadTool().run({"path": "notes.txt"}, ctx)
    assert "PRIVATE" not in str(exc.value)
    (ws / "single.txt").write_text("fine\n")
    assert "fine" in (await ReadTool().run({"path": "single.txt"}, ctx)).output
