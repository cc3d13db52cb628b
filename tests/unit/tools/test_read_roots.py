"""Extra read-only roots (skill folders): read, list and grep accept them; edit and write do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggd.tools import ToolContext, ToolError
from ggd.tools.edit_tools import WriteTool
from ggd.tools.fs_tools import ListTool, ReadTool
from ggd.tools.grep_tool import GrepTool
from ggd.tools.paths import is_readable, resolve_readable


@pytest.fixture
def world(tmp_path: Path) -> tuple[ToolContext, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    skill = tmp_path / "skills" / "notes"
    skill.mkdir(parents=True)
    (skill / "ref.txt").write_text("sibling text\n")
    (tmp_path / "skills" / "secret.txt").write_text("not a skill\n")
    (ws / "escape").symlink_to(tmp_path / "skills")
    ctx = ToolContext(workspace=ws, log_dir=tmp_path / "logs", read_roots=(skill,))
    return ctx, skill


async def test_read_list_grep_inside_a_read_root(world: tuple[ToolContext, Path]) -> None:
    ctx, skill = world
    ref = str(skill / "ref.txt")
    assert ReadTool().describe({"path": ref}, ctx).needs_approval is False
    assert "sibling text" in (await ReadTool().run({"path": ref}, ctx)).output
    assert (await ListTool().run({"path": str(skill)}, ctx)).output == "ref.txt"
    out = (await GrepTool().run({"pattern": "sibling", "path": str(skill)}, ctx)).output
    assert out.endswith("ref.txt:1:sibling text")


async def test_outside_the_roots_and_writes_are_refused(world: tuple[ToolContext, Path]) -> None:
    ctx, skill = world
    secret = str(skill.parent / "secret.txt")
    assert not is_readable(secret, ctx) and not is_readable("escape/secret.txt", ctx)
    assert is_readable("escape/notes/ref.txt", ctx)  # a symlink into a root resolves inside it
    assert ReadTool().describe({"path": secret}, ctx).needs_approval is True
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_readable(secret, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await ReadTool().run({"path": secret}, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await WriteTool().run({"path": str(skill / "new.txt"), "content": "x"}, ctx)
    assert not (skill / "new.txt").exists()
