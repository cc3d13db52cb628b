"""Neovim 0.7's built-in LSP client with a 10-line config and no gg plugin drives a real ggd.

`gg.ask` runs, work-done progress arrives, the write's approval is answered through
vim.ui.select (window/showMessageRequest) and the file changes on disk. A picker like
dressing.nvim (a floating window that returns at once and picks on a key press) keeps the
editor responsive: the config answers from the picker's callback with gg/run.approve.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "nvim" / "plain_lsp.lua"
DOCS = HERE.parents[2] / "docs" / "clients.md"


def _env(
    tmp_path: Path, gg_home: Path, base_url: str, args: dict[str, Any], result: Path
) -> dict[str, str]:
    return {
        **os.environ,
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "test",
        "GG_MODEL": "fake-model",
        "GG_HOME": str(gg_home),
        "GG_TEST_ARGS": json.dumps(args),
        "GG_TEST_RESULT": str(result),
        "GG_TEST_HARNESS": str(HERE / "nvim" / "harness.lua"),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }


def test_gg_ask_from_nvim_without_a_plugin_changes_the_file(
    tmp_path: Path, gg_home: Path, workspace: Path, ggd_bin: Path
) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.fail("nvim is not installed (Debian package neovim)")
    target = workspace / "notes.md"
    fm = FakeModel(
        [
            {
                "text": "Writing the notes.",
                "toolCalls": [
                    {"name": "write", "arguments": {"path": "notes.md", "content": "# Notes\n"}}
                ],
            },
            {"text": "The notes are written.", "chunkSize": 4},
        ]
    ).start()
    result = tmp_path / "nvim-plain.json"
    args = {
        "cmd": [str(ggd_bin), "--stdio", "--exit-on-stdin-eof", "--workspace", str(workspace)],
        "config": str(CONFIG),
        "prompt": "write the notes",
        "file": str(target),
        "expect_content": "# Notes\n",
        "expect_log": "The notes are written.",
    }
    env = _env(tmp_path, gg_home, fm.base_url, args, result)
    scenario = HERE / "nvim" / "plain_lsp_scenario.lua"
    try:
        proc = subprocess.run(
            [nvim, "--headless", "--clean", "-c", f"luafile {scenario}"],
            env=env,
            cwd=workspace,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=90,
        )
    finally:
        fm.stop()
    if not result.exists():
        pytest.fail(f"nvim wrote no result (rc={proc.returncode}): {proc.stderr[-2000:]}")
    out = json.loads(result.read_text())
    assert out["ok"], out["error"]
    data = out["data"]
    assert set(data["commands"]) == {"gg.ask", "gg.askAboutSelection", "gg.cancel"}
    # The approval came through vim.ui.select with the two actions, and Allow was picked.
    assert len(data["selects"]) == 1 and data["selects"][0]["labels"] == ["Allow", "Deny"]
    assert "write" in data["selects"][0]["prompt"]
    kinds = [p["kind"] for p in data["progress"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert any("notes are written" in (p["message"] or "") for p in data["progress"])
    assert target.read_text() == "# Notes\n"


def test_the_documented_config_is_the_tested_one() -> None:
    block = re.search(r"```lua\n(-- gg without a plugin.*?)```", DOCS.read_text(), re.S)
    assert block is not None, "docs/clients.md has no plugin-free Neovim config block"
    documented = block.group(1).split("\n", 1)[1]  # after the heading comment
    assert documented.strip() == CONFIG.read_text().strip()


def test_a_dressing_like_picker_keeps_nvim_responsive_and_its_pick_reaches_ggd(
    tmp_path: Path, gg_home: Path, workspace: Path, ggd_bin: Path
) -> None:
    """The old config waited inside the LSP handler (vim.wait): typed keys never ran there."""
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.fail("nvim is not installed (Debian package neovim)")
    target = workspace / "notes.md"
    fm = FakeModel(
        [
            {
                "text": "Writing.",
                "toolCalls": [
                    {"name": "write", "arguments": {"path": "notes.md", "content": "# Notes\n"}}
                ],
            },
            {"text": "The notes are written."},
        ]
    ).start()
    result = tmp_path / "nvim-picker.json"
    args = {
        "cmd": [str(ggd_bin), "--stdio", "--exit-on-stdin-eof", "--workspace", str(workspace)],
        "config": str(CONFIG),
        "prompt": "write the notes",
        "file": str(target),
        "expect_content": "# Notes\n",
        "expect_log": "The notes are written.",
        "within_ms": 30000,
    }
    env = _env(tmp_path, gg_home, fm.base_url, args, result)
    scenario = HERE / "nvim" / "plain_lsp_picker_scenario.lua"
    try:
        proc = subprocess.run(
            [nvim, "--headless", "--clean", "-c", f"luafile {scenario}"],
            env=env,
            cwd=workspace,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=90,
        )
    finally:
        fm.stop()
    if not result.exists():
        pytest.fail(f"nvim wrote no result (rc={proc.returncode}): {proc.stderr[-2000:]}")
    out = json.loads(result.read_text())
    assert out["ok"], out["error"]
    data = out["data"]
    assert [p["labels"] for p in data["picker"]] == [["Allow", "Deny"]]
    assert data["picked"] == "Allow"
    assert target.read_text() == "# Notes\n"
