"""`gg diff`, `gg undo`, `gg redo` and the REPL's /diff, /undo, /redo, /checkout --files against
a real ggd, a scripted model and real files: each restore shows its files and asks first."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)


def write(path: str, content: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


def test_gg_diff_undo_redo_from_the_command_line(real_env: CliEnv) -> None:
    (real_env.ws / "keep.txt").write_text("mine\n")
    real_env.model.add_steps([write("app.py", "print(1)\n"), {"text": "wrote it"}])
    done = real_env.run("-p", "write app.py", "--yolo")
    assert done.returncode == 0, done.stderr
    assert (real_env.ws / "app.py").read_text() == "print(1)\n"

    diff = real_env.run("diff")
    assert diff.returncode == 0, diff.stderr
    assert re.search(r"A\s+\+1 -0\s+app\.py", diff.stdout) and "+print(1)" in diff.stdout

    refused = real_env.run("undo")  # no terminal to ask, no --yes: shows, restores nothing
    assert refused.returncode == 1 and "app.py" in refused.stderr and "--yes" in refused.stderr
    assert (real_env.ws / "app.py").exists()

    undone = real_env.run("undo", "--yes")
    assert undone.returncode == 0, undone.stderr
    assert "1 file(s) restored" in undone.stderr
    assert not (real_env.ws / "app.py").exists()
    assert (real_env.ws / "keep.txt").read_text() == "mine\n"

    redone = real_env.run("redo", "--yes")
    assert redone.returncode == 0, redone.stderr
    assert (real_env.ws / "app.py").read_text() == "print(1)\n"


def test_slash_undo_redo_diff_and_checkout_files(real_env: CliEnv) -> None:
    real_env.model.add_steps(
        [write("a.txt", "one\n"), {"text": "first done"}, write("a.txt", "two\n"), {"text": "ok"}]
    )
    p = real_env.pty("--yolo")
    p.expect("gg> ")
    p.send("first\r")
    p.expect("first done")
    p.expect("gg> ")
    p.send("second\r")
    p.expect("ok")
    p.expect("gg> ")
    p.send("/diff\r")
    p.expect(r"M\s+\+1 -1\s+a\.txt")
    p.expect("gg> ")
    p.send("/undo\r")
    p.expect(r"restore these 1 file\(s\)\? \[y/N\]")
    p.send("y\r")
    p.expect("1 file\\(s\\) restored")
    p.expect("gg> ")
    assert (real_env.ws / "a.txt").read_text() == "one\n"
    p.send("/redo\r")
    p.expect(r"\[y/N\]")
    p.send("y\r")
    p.expect("restored")
    p.expect("gg> ")
    assert (real_env.ws / "a.txt").read_text() == "two\n"
    p.send("/tree\r")
    m = p.expect(r"([0-9a-f]{8})\s+user: first")
    p.expect("gg> ")
    p.send(f"/checkout {m.group(1)} --files\r")
    p.expect(r"D\s+\+0 -1\s+a\.txt")
    p.expect(r"\[y/N\]")
    p.send("y\r")
    p.expect("files restored")
    p.expect("gg> ")
    assert not (real_env.ws / "a.txt").exists()
    p.send("\x15\x04")  # the checkout put "first" back as a draft: clear it, then leave
    assert p.wait() == 0
