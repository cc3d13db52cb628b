"""The client delegate of one run: gg/client.* requests on the connection that started it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ggd.app import TOOL_CALL_ID, ClientToolError, CommandOutcome
from ggd.protocol.client import (
    CLIENT_READ_TEXT_FILE,
    CLIENT_RUN_COMMAND,
    CLIENT_WRITE_TEXT_FILE,
    ClientReadTextFileResult,
    ClientRunCommandResult,
)
from ggd.protocol.run import ClientTools

from .client import ClientRequestError, ClientRequests

# A read or a buffer write is a local editor operation; past this, gg reads the disk itself.
FILE_TIMEOUT = 30.0


class ConnectionDelegate:
    """ggd.tools' ClientDelegate over one connection's server->client requests."""

    def __init__(
        self, requests: ClientRequests, tools: ClientTools, file_timeout: float = FILE_TIMEOUT
    ) -> None:
        self.requests = requests
        self.tools = tools
        self.run_id = ""  # set once the run exists, before any tool runs
        self.file_timeout = file_timeout

    # What the client offered, even once it is gone: a request then fails undelivered, so the
    # tool result says why gg used the disk instead of doing so silently.
    @property
    def can_read(self) -> bool:
        """The client said it serves file text."""
        return self.tools.read_text_file

    @property
    def can_write(self) -> bool:
        """The client said it takes new file text."""
        return self.tools.write_text_file

    @property
    def can_run(self) -> bool:
        """The client said it has a terminal."""
        return self.tools.terminal

    async def _ask(self, method: str, params: dict[str, Any], within: float | None) -> Any:
        try:
            async with asyncio.timeout(within):
                call = {"toolCallId": TOOL_CALL_ID.get()} if TOOL_CALL_ID.get() else {}
                return await self.requests.request(method, {"runId": self.run_id, **call, **params})
        except ClientRequestError as exc:
            raise ClientToolError(str(exc), delivered=exc.delivered) from None
        except TimeoutError:
            raise ClientToolError(f"no answer within {within:g} s", delivered=True) from None

    @staticmethod
    def _parse(model: type[BaseModel], raw: Any, what: str) -> Any:
        try:
            return model.model_validate(raw)
        except ValidationError:
            raise ClientToolError(
                f"the client's {what} answer is malformed", delivered=True
            ) from None

    async def read_text(self, path: Path) -> str:
        """The editor's text of path (gg/client.readTextFile)."""
        raw = await self._ask(CLIENT_READ_TEXT_FILE.name, {"path": str(path)}, self.file_timeout)
        result: ClientReadTextFileResult = self._parse(ClientReadTextFileResult, raw, "read")
        return result.content

    async def write_text(self, path: Path, content: str) -> None:
        """Hand path's new text to the editor (gg/client.writeTextFile)."""
        params = {"path": str(path), "content": content}
        await self._ask(CLIENT_WRITE_TEXT_FILE.name, params, self.file_timeout)

    async def run_command(
        self, command: str, cwd: Path, time_limit: float, output_limit: int
    ) -> CommandOutcome:
        """Run command in the editor's terminal (gg/client.runCommand); a cancel kills it."""
        params = {
            "command": command,
            "cwd": str(cwd),
            "timeoutMs": int(time_limit * 1000),
            "outputByteLimit": output_limit,
        }
        # No timeout of our own: bash's own limit wraps this call and cancels it.
        raw = await self._ask(CLIENT_RUN_COMMAND.name, params, None)
        r: ClientRunCommandResult = self._parse(ClientRunCommandResult, raw, "runCommand")
        return CommandOutcome(
            output=r.output,
            truncated=r.truncated,
            exit_code=r.exit_code,
            signal=r.signal,
            timed_out=r.timed_out,
        )


__all__ = ["ConnectionDelegate"]
