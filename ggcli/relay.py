"""`gg rpc` (NDJSON JSON-RPC relay) and `gg bridge` (raw LSP byte pump) to the daemon."""

from __future__ import annotations

import json
import os
import select
import socket
import sys
from pathlib import Path
from typing import Any

from ggcli.discovery import gg_home, live_daemon, open_client, start_daemon
from ggcli.rpc import Client, ConnectionLost, RpcError, SocketChannel
from ggcli.session import demo_notice

__all__ = ["rpc_client_factory", "run_bridge", "run_rpc"]

BRIDGE_LINGER = 5.0


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def run_rpc(client_factory: Any) -> int:
    """Relay NDJSON on stdin/stdout to the daemon until stdin ends and answers are in.

    If the first line is an `initialize` request it is relayed like any other line and the
    caller owns the handshake; otherwise gg performs initialize/initialized itself first.
    """
    stdin_fd = sys.stdin.fileno()
    buf = b""
    client: Client | None = None
    pending: set[Any] = set()
    eof = False
    try:
        while True:
            if client is not None:
                for msg in _drain(client):
                    if "method" not in msg and msg.get("id") is not None:
                        pending.discard(msg["id"])
                    _emit(msg)
            if eof and not pending:
                return 0
            fds = [] if eof else [stdin_fd]
            if client is not None:
                fds.append(client.fileno())
            ready, _, _ = select.select(fds, [], [])
            if client is not None and client.fileno() in ready:
                client.read_available()
            if stdin_fd in ready:
                data = os.read(stdin_fd, 65536)
                if not data:
                    eof = True
                    if buf.strip():
                        data = b"\n"
                buf += data
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    if not raw.strip():
                        continue
                    try:
                        msg = json.loads(raw)
                    except ValueError:
                        _emit(_parse_error("line is not JSON"))
                        continue
                    if not isinstance(msg, dict):
                        _emit(_parse_error("line is not a JSON object"))
                        continue
                    if client is None:
                        # Connect on the first line: it decides who does the handshake.
                        client = client_factory(msg.get("method") != "initialize")
                    if "method" in msg and "id" in msg:
                        pending.add(msg["id"])
                    client.send(msg)
                if eof and client is None:
                    return 0
    except ConnectionLost:
        return 0 if not pending else 1
    finally:
        if client is not None:
            client.channel.close()


def _drain(client: Client) -> list[dict[str, Any]]:
    out = list(client.notifications)
    client.notifications.clear()
    return out


def _parse_error(message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": message}}


def rpc_client_factory(workspace: Path, no_daemon: bool) -> Any:
    """A factory that connects and, when asked to, performs the handshake for the caller."""

    def factory(do_initialize: bool) -> Client:
        client = open_client(workspace, no_daemon)
        if do_initialize:
            client.initialize(workspace)
            try:
                notice = demo_notice(client.request("gg/system.info") or {})
            except RpcError:
                notice = None
            if notice:
                sys.stderr.write(notice + "\n")
        client.passthrough = True
        return client

    return factory


def run_bridge() -> int:
    """Pump bytes between stdio and the daemon's socket (the LSP client does its handshake)."""
    home = gg_home()
    disc = live_daemon(home) or start_daemon(home)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(disc.socket)
    chan = SocketChannel(sock)
    stdin_fd, stdout_fd = sys.stdin.fileno(), sys.stdout.fileno()
    stdin_open = True
    try:
        while True:
            fds = [sock.fileno()] + ([stdin_fd] if stdin_open else [])
            # Once the client hung up, give the daemon a moment to flush and close, no more.
            ready, _, _ = select.select(fds, [], [], None if stdin_open else BRIDGE_LINGER)
            if not ready:
                return 0
            if sock.fileno() in ready:
                data = chan.recv()
                if not data:
                    return 0
                _write_all(stdout_fd, data)
            if stdin_open and stdin_fd in ready:
                data = os.read(stdin_fd, 65536)
                if not data:
                    # Half-close: the daemon sees EOF, closes this connection, and we end.
                    stdin_open = False
                    sock.shutdown(socket.SHUT_WR)
                    continue
                sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        return 0
    finally:
        sock.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
