"""`ggd --acp` as the child of a test editor: the official Python SDK client, connected and
initialized, and the child stopped (killed if it must be) however the test ends."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import acp
from acp.schema import ClientCapabilities


async def spawn_acp(
    env: dict[str, str], workspace: Path, *, stderr: bool = False
) -> asyncio.subprocess.Process:
    """`ggd --acp` with piped stdin/stdout (and stderr when asked), as an editor starts it."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ggd.daemon",
        "--acp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE if stderr else None,
        env=env,
        cwd=str(workspace),
    )


@contextlib.asynccontextmanager
async def acp_child(
    env: dict[str, str],
    workspace: Path,
    client: Any,
    caps: ClientCapabilities,
    cleanup: Callable[[], None] = lambda: None,
) -> AsyncIterator[tuple[Any, Any]]:
    """(the SDK connection, initialize's answer); cleanup runs before the child is closed."""
    proc = await spawn_acp(env, workspace)
    assert proc.stdin is not None and proc.stdout is not None
    conn = acp.connect_to_agent(client, proc.stdin, proc.stdout)
    try:
        init = await asyncio.wait_for(
            conn.initialize(protocol_version=1, client_capabilities=caps), 60
        )
        yield conn, init
    finally:
        cleanup()
        with contextlib.suppress(Exception):
            await conn.close()
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 20)
        except TimeoutError:
            proc.kill()
            await proc.wait()
