"""A small synchronous JSON-RPC 2.0 client over a byte channel (Unix socket or child pipes)."""

from __future__ import annotations

import os
import select
import socket
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ggcli import __version__
from ggcli.framing import FrameDecoder, FramingError, encode

if TYPE_CHECKING:  # subprocess costs import time on the fast path; only types are needed here
    import subprocess

__all__ = [
    "PROTOCOL_MAJOR",
    "Channel",
    "Client",
    "ConnectionLost",
    "PipeChannel",
    "RpcError",
    "SocketChannel",
]

PROTOCOL_MAJOR = "1"
METHOD_NOT_FOUND = -32601


class RpcError(Exception):
    """An error response from the daemon: code, message and the symbolic data.code."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data if isinstance(data, dict) else {}

    @property
    def symbol(self) -> str:
        """The symbolic error code (data.code), or '' when the daemon sent none."""
        return str(self.data.get("code", ""))


class ConnectionLost(Exception):
    """The daemon closed the connection or sent bytes that are not JSON-RPC."""


class Channel(Protocol):
    """A bidirectional byte stream with a pollable read side."""

    def fileno(self) -> int:
        """The file descriptor to select() on for reading."""
        ...

    def send(self, data: bytes) -> None:
        """Write all bytes."""
        ...

    def recv(self) -> bytes:
        """Read what is available (blocking for at least one byte); b'' on EOF."""
        ...

    def close(self) -> None:
        """Release the channel."""
        ...


class SocketChannel:
    """A connected Unix stream socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    @classmethod
    def connect(cls, path: str | Path, timeout: float = 5.0) -> SocketChannel:
        """Connect to a Unix socket path."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except OSError:
            sock.close()
            raise
        sock.settimeout(None)
        return cls(sock)

    def fileno(self) -> int:
        """The socket descriptor."""
        return self.sock.fileno()

    def send(self, data: bytes) -> None:
        """Write all bytes."""
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise ConnectionLost("the daemon closed the connection") from exc

    def recv(self) -> bytes:
        """Read up to 64 KiB."""
        try:
            return self.sock.recv(65536)
        except OSError:
            return b""

    def close(self) -> None:
        """Close the socket."""
        self.sock.close()


class PipeChannel:
    """The stdin/stdout pipes of a private `ggd --stdio` child."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc = proc
        self._in = proc.stdin
        self._out_fd = proc.stdout.fileno()

    def fileno(self) -> int:
        """The child's stdout descriptor."""
        return self._out_fd

    def send(self, data: bytes) -> None:
        """Write all bytes to the child's stdin."""
        try:
            self._in.write(data)
            self._in.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise ConnectionLost(self.lost_reason()) from exc

    def recv(self) -> bytes:
        """Read what the child wrote."""
        try:
            return os.read(self._out_fd, 65536)
        except OSError:
            return b""

    def lost_reason(self) -> str:
        """Why the child went away: its own stderr message (e.g. a broken config.json)."""
        import subprocess

        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the private ggd closed the connection"
        err_path, start = getattr(self.proc, "gg_err", (None, 0))
        text = ""
        if err_path is not None:
            try:
                with open(err_path, "rb") as fh:
                    fh.seek(start)
                    text = fh.read(8000).decode("utf-8", "replace")
            except OSError:
                pass
        from ggcli.discovery import startup_message

        why = startup_message(text)
        code = self.proc.returncode
        return (
            f"the private ggd exited ({code}): {why}" if why else f"the private ggd exited ({code})"
        )

    def close(self) -> None:
        """Close stdin (the child exits on EOF) and reap it, bounded."""
        try:
            self._in.close()
        except OSError:
            pass
        import subprocess

        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Client:
    """JSON-RPC client: requests block until their response; notifications are queued."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self._decoder = FrameDecoder()
        self._next_id = 0
        self._responses: dict[int | str, dict[str, Any]] = {}
        self.notifications: deque[dict[str, Any]] = deque()
        self.closed = False
        # In passthrough mode (gg rpc) every incoming message is queued in order, untouched.
        self.passthrough = False
        self.init_result: dict[str, Any] = {}

    def fileno(self) -> int:
        """Descriptor to select() on."""
        return self.channel.fileno()

    def send(self, message: dict[str, Any]) -> None:
        """Send one raw JSON-RPC message."""
        self.channel.send(encode(message))

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def request(self, method: str, params: Any = None, timeout: float | None = 30.0) -> Any:
        """Send a request and wait for its result; raises RpcError on an error response."""
        return self.wait_response(self.send_request(method, params), timeout)

    def send_request(self, method: str, params: Any = None) -> int:
        """Send a request without waiting (pipelining); returns its id for wait_response()."""
        self._next_id += 1
        rid = self._next_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return rid

    def wait_response(self, rid: int, timeout: float | None = 30.0) -> Any:
        """Wait for the response to request rid; its result, or RpcError."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while rid not in self._responses:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError("no answer from the daemon")
            self.pump(left)
        resp = self._responses.pop(rid)
        if "error" in resp:
            err = resp["error"] or {}
            raise RpcError(
                int(err.get("code", -32603)), str(err.get("message", "")), err.get("data")
            )
        return resp.get("result")

    def pump(self, timeout: float | None = None) -> bool:
        """Wait up to timeout for bytes, decode them and file every message; False on timeout."""
        if self.closed:
            raise ConnectionLost("the daemon closed the connection")
        ready, _, _ = select.select([self.channel.fileno()], [], [], timeout)
        if not ready:
            return False
        self.read_available()
        return True

    def read_available(self) -> None:
        """Read once from the channel (it must be readable) and file the messages."""
        data = self.channel.recv()
        if not data:
            self.closed = True
            reason = getattr(self.channel, "lost_reason", None)
            raise ConnectionLost(reason() if reason else "the daemon closed the connection")
        try:
            messages = self._decoder.feed(data)
        except FramingError as exc:
            self.closed = True
            raise ConnectionLost(f"bad data from the daemon: {exc}") from exc
        for msg in messages:
            self._file(msg)

    def _file(self, msg: Any) -> None:
        if not isinstance(msg, dict):
            return
        if self.passthrough:
            self.notifications.append(msg)
            return
        if "method" in msg:
            if "id" in msg:
                # ggd does not need answers from the CLI; refuse politely so it never waits.
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": msg["id"],
                        "error": {"code": METHOD_NOT_FOUND, "message": "not supported by gg"},
                    }
                )
                return
            self.notifications.append(msg)
        elif "id" in msg:
            self._responses[msg["id"]] = msg

    def next_notification(self, timeout: float | None) -> dict[str, Any] | None:
        """The oldest queued notification, waiting up to timeout for one."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.notifications:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            self.pump(left)
        return self.notifications.popleft()

    def initialize(self, workspace: Path) -> dict[str, Any]:
        """Run the LSP handshake for this workspace and check the protocol major version."""
        uri = workspace.resolve().as_uri()
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "gg", "version": __version__},
            "capabilities": {},
            "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": workspace.resolve().name or "/"}],
        }
        result = self.request("initialize", params) or {}
        gg = ((result.get("capabilities") or {}).get("experimental") or {}).get("gg") or {}
        version = str(gg.get("protocolVersion", ""))
        if version.split(".")[0] != PROTOCOL_MAJOR:
            raise RpcError(
                -32600,
                f"ggd speaks protocol {version or 'unknown'}; this gg needs {PROTOCOL_MAJOR}.x "
                "(upgrade gg or ggd so they match)",
            )
        self.notify("initialized", {})
        self.init_result = result
        return result

    def close(self) -> None:
        """Say goodbye (shutdown + exit, best effort) and release the channel."""
        if not self.closed:
            try:
                self.request("shutdown", None, timeout=2.0)
                self.notify("exit")
            except (RpcError, ConnectionLost, TimeoutError, OSError):
                pass
        self.closed = True
        self.channel.close()
