"""grep with ripgrep and with the pure-Python fallback: same output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ggd.tools import ToolContext, ToolError
from ggd.tools.grep_tool import GrepTool

ENGINES = ["ripgrep", "python"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run each test with rg (skipped when absent) and with the fallback."""
    if request.param == "ripgrep":
        if shutil.which("rg") is None:
            pytest.skip("ripgrep not installed")
    else:
        monkeypatch.setattr("ggd.tools.grep_tool.rg_path", lambda: None)
    return str(request.param)


@pytest.fixture
def tree(ws: Path) -> Path:
    """A small tree: sources, a nested folder, .git and a binary file."""
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("def main():\n    return foo(1)\n")
    (ws / "src" / "pkg" / "b.py").write_text("x = 'foo.bar'\nfooXbar = 2\n")
    (ws / "README.md").write_text("call foo() here\n")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("foo in git\n")
    (ws / "blob.bin").write_bytes(b"foo\x00\x01")
    return ws


async def test_regex_search(tree: Path, ctx: ToolContext, engine: str) -> None:
    r = await GrepTool().run({"pattern": r"foo\(\d?\)"}, ctx)
    assert r.output.splitlines() == ["README.md:1:call foo() here", "src/a.py:2:    return foo(1)"]
    assert r.details and r.details["engine"] == engine


async def test_literal_search_in_subdir(tree: Path, ctx: ToolContext, engine: str) -> None:
    r = await GrepTool().run({"pattern": "foo.bar", "literal": True, "path": "src"}, ctx)
    assert r.output.splitlines() == ["src/pkg/b.py:1:x = 'foo.bar'"]
    r = await GrepTool().run({"pattern": "foo.bar", "path": "src"}, ctx)
    assert r.output.splitlines() == ["src/pkg/b.py:1:x = 'foo.bar'", "src/pkg/b.py:2:fooXbar = 2"]


async def test_single_file_and_no_matches(tree: Path, ctx: ToolContext, engine: str) -> None:
    r = await GrepTool().run({"pattern": "main", "path": "src/a.py"}, ctx)
    assert r.output == "src/a.py:1:def main():"
    r = await GrepTool().run({"pattern": "zzz_nothing"}, ctx)
    assert r.output == "no matches"


async def test_limit_note(ws: Path, ctx: ToolContext, engine: str) -> None:
    (ws / "many.txt").write_text("hit\n" * 30)
    r = await GrepTool().run({"pattern": "hit", "limit": 5}, ctx)
    lines = r.output.splitlines()
    assert lines[:5] == [f"many.txt:{i}:hit" for i in range(1, 6)]
    assert lines[5].startswith("[match limit 5 reached")
    r = await GrepTool().run({"pattern": "hit", "limit": 10_000}, ctx)
    assert len(r.output.splitlines()) == 30


async def test_invalid_regex_and_outside_path(ws: Path, ctx: ToolContext, engine: str) -> None:
    (ws / "f").write_text("x\n")
    with pytest.raises(ToolError, match="grep failed"):
        await GrepTool().run({"pattern": "("}, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await GrepTool().run({"pattern": "x", "path": ".."}, ctx)


async def test_a_catastrophic_regex_in_the_fallback_is_killed_and_the_loop_stays_free(
    ws: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    monkeypatch.setattr("ggd.tools.grep_tool.rg_path", lambda: None)
    monkeypatch.setenv("GG_GREP_TIMEOUT", "1")
    (ws / "evil.txt").write_text("a" * 40 + "b\n")  # (a+)+$ needs ~2**40 steps here
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    t = asyncio.create_task(ticker())
    try:
        with pytest.raises(ToolError, match="took too long"):
            await GrepTool().run({"pattern": "(a+)+$"}, ctx)
    finally:
        t.cancel()
    assert ticks > 5  # the event loop kept running while the pattern ran


async def test_canceling_the_fallback_kills_its_process(
    ws: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import os

    monkeypatch.setattr("ggd.tools.grep_tool.rg_path", lambda: None)
    (ws / "evil.txt").write_text("a" * 40 + "b\n")
    before = set(os.listdir("/proc"))
    task = asyncio.create_task(GrepTool().run({"pattern": "(a+)+$"}, ctx))

    def workers() -> list[str]:
        out = []
        for pid in set(os.listdir("/proc")) - before:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"grep_worker" in cmd:
                out.append(pid)
        return out

    for _ in range(500):
        if workers():
            break
        await asyncio.sleep(0.01)
    assert workers(), "the fallback did not start a worker process"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert workers() == []


async def test_files_with_several_hard_links_are_skipped(
    tmp_path: Path, ws: Path, ctx: ToolContext, engine: str
) -> None:
    import os

    outside = tmp_path / "secret.txt"
    outside.write_text("password=hunter2\n")
    os.link(outside, ws / "innocent.txt")
    (ws / "plain.txt").write_text("password=none here\n")
    r = await GrepTool().run({"pattern": "password"}, ctx)
    assert "hunter2" not in r.output
    assert "plain.txt:1:password=none here" in r.output
    assert "1 file(s) with several hard links skipped" in r.output
