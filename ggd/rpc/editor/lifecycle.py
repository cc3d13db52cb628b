"""What LSP's lifecycle asks of a private stdio server: exit codes and the parent's death.

LSP: `exit` ends the server with code 0 after `shutdown`, 1 without it; a server whose
`initialize` named a `processId` should end when that process is gone. Both apply to the
connection of a private `ggd --stdio` only: on a shared daemon `exit` closes that connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os

from ..connection import Connection

log = logging.getLogger("ggd.rpc")

# A dead editor is noticed within this; one kill(pid, 0) per interval is the whole cost.
PARENT_POLL = 3.0


def exit_code(shut_down: bool) -> int:
    """The code LSP gives `exit`: 0 after `shutdown`, 1 without it."""
    return 0 if shut_down else 1


def alive(pid: int) -> bool:
    """Whether a process with this id exists (a process of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, ValueError):  # not a pid this system can have
        return False
    return True


async def _watch(conn: Connection, pid: int, every: float) -> None:
    while not conn.closed:
        await asyncio.sleep(every)
        if not alive(pid):
            log.info("the client's process %d is gone: closing", pid, extra={"conn": conn.id})
            conn.close()
            return


def watch_client_process(conn: Connection, pid: int | None, every: float = PARENT_POLL) -> None:
    """Close a stdio connection once the process `initialize` named has died."""
    if pid is None or pid <= 0 or conn.transport != "stdio":
        return
    if not alive(pid):
        # Not visible from here (an editor in a sandbox or container names its own pid
        # namespace): watching it would end the server at once.
        log.info("the client's process %d is not visible: not watched", pid)
        return
    task = asyncio.get_running_loop().create_task(_watch(conn, pid, every))

    def stop(_c: Connection) -> None:
        with contextlib.suppress(RuntimeError):  # the loop may be closing already
            task.cancel()

    conn.on_close.append(stop)


__all__ = ["PARENT_POLL", "alive", "exit_code", "watch_client_process"]
