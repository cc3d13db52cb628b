"""Bounded helper processes: every external program the computer tools run goes through here."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

# No helper may run longer than this; on timeout its whole process group is killed.
HELPER_TIMEOUT_SECONDS = 30.0


class HelperError(Exception):
    """A helper program failed, timed out or is missing; the message says which."""


async def run_helper(
    argv: list[str],
    *,
    stdin: bytes | None = None,
    limit: float = HELPER_TIMEOUT_SECONDS,
    capture: bool = True,
) -> bytes:
    """Run argv in its own process group and return stdout; HelperError on failure or timeout.

    `capture=False` for programs that leave a child behind holding their output open (xclip
    keeps the selection alive in a forked child): then only the exit is awaited.
    """
    out_mode = asyncio.subprocess.PIPE if capture else asyncio.subprocess.DEVNULL
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=out_mode,
            stderr=out_mode,
            start_new_session=True,
        )
    except OSError as exc:
        raise HelperError(f"{argv[0]} cannot start ({exc.strerror})") from None
    try:
        async with asyncio.timeout(limit):
            out, err = await proc.communicate(stdin)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise HelperError(f"{argv[0]} did not finish within {limit:g} s and was stopped") from None
    if proc.returncode != 0:
        detail = (err or b"").decode(errors="replace").strip().splitlines()[:1]
        raise HelperError(
            f"{argv[0]} exited with {proc.returncode}" + (f": {detail[0]}" if detail else "")
        )
    return out or b""
