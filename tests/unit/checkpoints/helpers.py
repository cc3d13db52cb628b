"""Shared by the checkpoint tests: the state of a folder, and a git repository of the user's."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "u",
    "GIT_AUTHOR_EMAIL": "u@example.com",
    "GIT_COMMITTER_NAME": "u",
    "GIT_COMMITTER_EMAIL": "u@example.com",
}


def state(root: Path, skip: tuple[str, ...] = (".git",)) -> dict[str, tuple[str, int]]:
    """relative path -> (sha256 of its bytes, mode) of every file under root but `skip`.

    The mode is what git records of a file: 0o755 when executable by its owner, else 0o644.
    """
    out: dict[str, tuple[str, int]] = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.relpath(os.path.join(dirpath, d), root) not in skip]
        for name in files:
            p = Path(dirpath, name)
            rel = os.path.relpath(p, root)
            if rel in skip:
                continue
            st = p.lstat()
            out[rel] = (
                hashlib.sha256(p.read_bytes()).hexdigest(),
                0o755 if st.st_mode & 0o100 else 0o644,
            )
    return out


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under root (the user's .git) with its exact bytes, and its mode."""
    out: dict[str, bytes] = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath, name)
            out[os.path.relpath(p, root)] = p.read_bytes() + oct(p.stat().st_mode).encode()
    return out


def user_repo(ws: Path) -> None:
    """Make `ws` a git repository with a commit, a stash, an index and a hook of its own."""

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ws, env=GIT_ENV, check=True, capture_output=True)

    git("init", "-q")
    (ws / "README.md").write_text("# project\n")
    (ws / ".gitignore").write_text("*.log\n")
    git("add", "-A")
    git("commit", "-qm", "init")
    (ws / "README.md").write_text("# project, edited\n")
    git("stash", "-q")
    (ws / "staged.txt").write_text("staged\n")
    git("add", "staged.txt")
    hook = ws / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho hook ran > hook-ran.txt\n")
    hook.chmod(0o755)
