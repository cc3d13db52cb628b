"""Run one hook command: JSON on stdin, a scrubbed environment, the workspace as cwd, a timeout.

The command runs through bash (or sh) as Claude Code runs it, in its own process group, so a
timeout or a cancelled run kills everything it started. Its environment is the daemon's PATH,
HOME, LANG and friends (never an API key) plus the documented GG_* variables and
CLAUDE_PROJECT_DIR, so scripts written for Claude Code find the project the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# The only variables of the daemon's environment a hook inherits.
INHERITED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "USER", "LOGNAME", "SHELL", "TMPDIR")
# Output kept from a hook (more is cut): enough for any reason or context a hook gives.
OUTPUT_LIMIT = 64 * 1024
KILL_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class HookRun:
    """What one command did: its exit code (None when it did not finish), stdout, stderr."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    error: str = ""  # it could not be started


def hook_env(
    base: Mapping[str, str], *, session_id: str, workspace: Path, event: str, home: Path
) -> dict[str, str]:
    """The environment of a hook: the inherited variables plus gg's documented ones."""
    env = {k: base[k] for k in INHERITED_ENV if k in base}
    env.update(
        {
            "GG_HOOK_EVENT": event,
            "GG_SESSION_ID": session_id,
            "GG_WORKSPACE": str(workspace),
            "GG_HOME": str(home),
            "GG_PROJECT_DIR": str(workspace),
            "CLAUDE_PROJECT_DIR": str(workspace),
        }
    )
    return env


def _shell() -> list[str]:
    bash = shutil.which("bash", path="/usr/bin:/bin")
    return [bash, "-c"] if bash else ["/bin/sh", "-c"]


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _text(data: bytes) -> str:
    text = data[:OUTPUT_LIMIT].decode("utf-8", errors="replace")
    return text + ("\n[... output cut]" if len(data) > OUTPUT_LIMIT else "")


async def run_hook(
    command: str, stdin: bytes, *, env: dict[str, str], cwd: Path, seconds: float
) -> HookRun:
    """Run one command to its end or its timeout; cancelling the caller kills it too."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *_shell(),
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=str(cwd),
            start_new_session=True,
        )
    except OSError as exc:
        return HookRun(None, "", "", error=f"could not start: {exc.strerror or exc}")
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), seconds)
    except TimeoutError:
        _kill(proc)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), KILL_GRACE_SECONDS)
        return HookRun(None, "", "", timed_out=True, error=f"timed out after {seconds:g} s")
    except BaseException:
        _kill(proc)  # the run was cancelled: the hook's processes go with it
        raise
    finally:
        if proc.returncode is None:
            _kill(proc)
    return HookRun(proc.returncode, _text(out), _text(err))


__all__ = ["INHERITED_ENV", "HookRun", "hook_env", "run_hook"]
