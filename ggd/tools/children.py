"""Signalling asyncio's child processes without reaping them.

asyncio's child watcher waits for each child in its own thread (`waitpid(pid, 0)`). `Popen.kill()`,
`terminate()`, `send_signal()` and `poll()` (which `Process.kill()` and a transport's `close()` call)
first run `waitpid(pid, WNOHANG)`: when the child has just exited they reap it before the watcher
does, and asyncio then logs "Unknown child process pid N, will report returncode 255" and reports
255 instead of the real exit code. So tools signal children with `os.kill` and never poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal


def kill_child(proc: asyncio.subprocess.Process, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to a child asyncio has not yet seen exit; a zombie keeps its pid, so it is safe."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, sig)
