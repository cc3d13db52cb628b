"""Emacs 28 + eglot 1.9 (Debian's emacs-nox and elpa-eglot), headless, drive a real ggd.

eglot declares no `window.showMessage`, yet answers `window/showMessageRequest` with
`completing-read`: in `emacs --batch` that reads a line of stdin, where the test types "Allow".
gg must ask it (it used to deny every write for such clients).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "emacs" / "eglot_scenario.el"


@pytest.mark.parametrize("via", ["stdio", "bridge"])
def test_eglot_asks_the_approval_and_its_allow_writes_the_file(
    tmp_path: Path,
    gg_home: Path,
    workspace: Path,
    ggd_bin: Path,
    gg_bin: Path,
    fake_daemon: Any,
    via: str,
) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.fail("emacs is not installed (Debian emacs-nox and elpa-eglot: make system-deps)")
    (workspace / "app.py").write_text("print('hi')\n")
    target = workspace / "notes.md"
    script = [
        {
            "text": "Writing.",
            "toolCalls": [
                {"name": "write", "arguments": {"path": "notes.md", "content": "# Notes\n"}}
            ],
        },
        {"text": "The notes are written."},
    ]
    if via == "bridge":  # a shared daemon of this GG_HOME, as `gg bridge` finds it
        d, fm = fake_daemon(script)
        base_env = d.env
    else:
        fm = FakeModel(script).start()
        base_env = {
            **os.environ,
            "OPENAI_BASE_URL": fm.base_url,
            "OPENAI_API_KEY": "test",
            "GG_MODEL": "fake-model",
            "GG_HOME": str(gg_home),
        }
    cmd = (
        [str(ggd_bin), "--stdio", "--workspace", str(workspace)]
        if via == "stdio"
        else [str(gg_bin), "bridge"]
    )
    result = tmp_path / "eglot.json"
    args = {
        "cmd": cmd,
        "source": str(workspace / "app.py"),
        "target": str(target),
        "expect": "# Notes\n",
        "prompt": "write the notes",
        "within": 60,
    }
    env = {
        **base_env,
        "GG_TEST_ARGS": json.dumps(args),
        "GG_TEST_RESULT": str(result),
        "HOME": str(tmp_path),  # no user init; Debian's site-start puts eglot on the load path
    }
    err_log = tmp_path / "emacs.err"
    try:
        with open(err_log, "w") as err:
            proc = subprocess.Popen(
                [emacs, "--batch", "--no-init-file", "-l", str(SCENARIO)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=err,
                env=env,
                cwd=workspace,
                text=True,
            )
            assert proc.stdin is not None
            # Typed ahead; stdin stays open while Emacs runs, as a terminal's does.
            proc.stdin.write("Allow\n")
            proc.stdin.flush()
            try:
                proc.wait(timeout=120)
            finally:
                proc.stdin.close()
                if proc.returncode is None:
                    proc.kill()
                    proc.wait()
    finally:
        if via == "stdio":
            fm.stop()
    stderr = err_log.read_text(errors="replace")
    if not result.exists():
        pytest.fail(f"emacs wrote no result (rc={proc.returncode}): {stderr[-3000:]}")
    out = json.loads(result.read_text())
    assert out["ok"], f"model requests: {len(fm.requests)}; {out['error'][:3000]}\n{stderr[-3000:]}"
    assert out["eglot"] == "eglot-1.9"
    asked = [q for q in out["asked"] if "gg wants to run write" in q]
    assert len(asked) == 1, out["asked"]
    assert target.read_text() == "# Notes\n"
