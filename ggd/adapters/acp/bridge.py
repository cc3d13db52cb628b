"""ggd's gg/client.* requests answered through the ACP client's fs/* and terminal/* methods.

The daemon decides what to delegate (the tools, the sandbox rule); the adapter only translates:
readTextFile -> fs/read_text_file, writeTextFile -> fs/write_text_file, runCommand ->
terminal/create, wait_for_exit, output, release (terminal/kill on a cancel or the timeout).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ggd.adapters.ggclient import ServeError

from .wire import Connection, PeerError

log = logging.getLogger("ggd.acp")
# terminal/kill and terminal/release after a cancel: bounded, the editor may be gone.
CLEANUP_SECONDS = 10.0


def client_tools(caps: dict[str, Any]) -> dict[str, bool] | None:
    """gg/run.start's clientTools from ACP's clientCapabilities (None when nothing is offered)."""
    raw = caps.get("fs")
    fs: dict[str, Any] = raw if isinstance(raw, dict) else {}
    tools = {
        "readTextFile": bool(fs.get("readTextFile")),
        "writeTextFile": bool(fs.get("writeTextFile")),
        "terminal": bool(caps.get("terminal")),
    }
    return tools if any(tools.values()) else None


@dataclass
class Terminals:
    """The terminals of one ACP session's run, by gg tool call, and the calls already shown."""

    by_call: dict[str, str] = field(default_factory=dict)
    announced: set[str] = field(default_factory=set)


def terminal_content(terminal_id: str) -> dict[str, Any]:
    """ACP's terminal content: the editor embeds the live terminal in the tool card."""
    return {"type": "terminal", "terminalId": terminal_id}


class Bridge:
    """Serves ggd's requests for the run of an ACP session (found by runId)."""

    def __init__(
        self,
        conn: Callable[[], Connection],
        session_of: Callable[[str], tuple[str, Terminals] | None],
        update: Callable[[str, dict[str, Any]], None],
    ) -> None:
        self._conn = conn
        self._session_of = session_of
        self._update = update

    async def serve(self, method: str, params: Any) -> Any:
        """Answer one gg/client.* request."""
        if not isinstance(params, dict):
            raise ServeError(-32602, "params must be an object")
        found = self._session_of(str(params.get("runId")))
        if found is None:
            raise ServeError(-32602, "no ACP session runs that run")
        sid, terms = found
        try:
            if method == "gg/client.readTextFile":
                res = await self._conn().request(
                    "fs/read_text_file", {"sessionId": sid, "path": params["path"]}
                )
                return {"content": str((res or {}).get("content", ""))}
            if method == "gg/client.writeTextFile":
                args = {"sessionId": sid, "path": params["path"], "content": params["content"]}
                await self._conn().request("fs/write_text_file", args)
                return {}
            if method == "gg/client.runCommand":
                return await self._run(sid, terms, params)
        except PeerError as exc:
            raise ServeError(int(exc.code or -32603), f"the editor refused: {exc}") from None
        except ConnectionError:
            raise ServeError(-32603, "the editor closed the connection") from None
        except KeyError as exc:
            raise ServeError(-32602, f"missing {exc.args[0]}") from None
        raise ServeError(-32601, f"not supported: {method}")

    async def _run(self, sid: str, terms: Terminals, params: dict[str, Any]) -> dict[str, Any]:
        conn = self._conn()
        created = await conn.request(
            "terminal/create",
            {
                "sessionId": sid,
                "command": "bash",
                "args": ["-c", str(params["command"])],
                "cwd": params.get("cwd"),
                "outputByteLimit": int(params.get("outputByteLimit") or 50 * 1024),
            },
        )
        tid = str((created or {}).get("terminalId"))
        ref = {"sessionId": sid, "terminalId": tid}
        call = str(params.get("toolCallId") or "")
        if call:
            terms.by_call[call] = tid
            if call in terms.announced:  # else the tool_call itself carries the terminal
                self._update(
                    sid,
                    {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call,
                        "content": [terminal_content(tid)],
                    },
                )
        timed_out = False
        try:
            try:
                async with asyncio.timeout(int(params.get("timeoutMs") or 120_000) / 1000):
                    await conn.request("terminal/wait_for_exit", ref)
            except TimeoutError:
                timed_out = True
                await conn.request("terminal/kill", ref, CLEANUP_SECONDS)
            out = await conn.request("terminal/output", ref) or {}
        except asyncio.CancelledError:
            # gg cancelled the call (run cancel, bash's timeout): kill the command there.
            with contextlib.suppress(Exception):
                await asyncio.shield(conn.request("terminal/kill", ref, CLEANUP_SECONDS))
            raise
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(conn.request("terminal/release", ref, CLEANUP_SECONDS))
        status = out.get("exitStatus") or {}
        return {
            "output": str(out.get("output") or ""),
            "truncated": bool(out.get("truncated")),
            "exitCode": status.get("exitCode"),
            "signal": status.get("signal"),
            "timedOut": timed_out,
        }


__all__ = ["Bridge", "Terminals", "client_tools", "terminal_content"]
