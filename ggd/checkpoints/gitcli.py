"""The `git` command line of one shadow repository, with an environment of its own.

Every call gets a scrubbed environment: the store's GIT_DIR and index, the workspace as work
tree, no system config (GIT_CONFIG_NOSYSTEM), no global config (HOME, XDG_CONFIG_HOME and
GIT_CONFIG_GLOBAL point inside the store), no prompts, no hooks (core.hooksPath is an empty
folder). The user's environment never reaches it, so neither their config, their hooks, nor a
GIT_DIR they exported can point git at the workspace's own `.git`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path


class GitError(Exception):
    """A git command failed; the message carries its stderr (never the environment)."""


def git_binary() -> str:
    """The git executable, or GitError when it is not installed."""
    found = shutil.which("git")
    if found is None:
        raise GitError("checkpoints need git, which is not on PATH")
    return found


class Git:
    """Runs git against one shadow repository (`git_dir`) with `work_tree` as its work tree."""

    def __init__(self, git_dir: Path, work_tree: Path) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.binary = git_binary()
        home = git_dir / "home"
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_DIR": str(git_dir),
            "GIT_WORK_TREE": str(work_tree),
            "GIT_INDEX_FILE": str(git_dir / "index"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home),
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_AUTHOR_NAME": "gg",
            "GIT_AUTHOR_EMAIL": "gg@localhost",
            "GIT_COMMITTER_NAME": "gg",
            "GIT_COMMITTER_EMAIL": "gg@localhost",
            "LC_ALL": "C",
            # Paths are paths: a file named `*.py` or `:(exclude)x` is that file, no pattern.
            "GIT_LITERAL_PATHSPECS": "1",
        }

    def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        ok: Sequence[int] = (0,),
    ) -> bytes:
        """Run `git args...` in the work tree; stdout as bytes; GitError on another exit code."""
        proc = subprocess.run(
            [self.binary, *args],
            input=stdin,
            capture_output=True,
            env=self.env,
            cwd=self.work_tree,
            check=False,
        )
        if proc.returncode not in ok:
            err = proc.stderr.decode("utf-8", "replace").strip()
            raise GitError(f"git {args[0]} failed ({proc.returncode}): {err[:2000]}")
        return proc.stdout

    def text(self, args: Sequence[str], *, stdin: bytes | None = None) -> str:
        """Run git and return stdout as stripped text."""
        out = self.run(args, stdin=stdin)
        return out.decode("utf-8", "surrogateescape").strip()
