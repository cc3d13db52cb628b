"""Start a real ggd process for end-to-end tests and find its endpoints."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .rpc_client import RpcClient

GGD = [sys.executable, "-m", "ggd.daemon"]
TOKEN = "test-token-0123456789"


# A developer's real model keys and endpoints never reach a daemon under test.
_PROVIDER_ENV = ("OPENAI_", "GG_", "ANTHROPIC_", "GEMINI_", "GOOGLE_API_KEY")


def daemon_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment for a ggd under test (no real provider, own GG_HOME)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_PROVIDER_ENV)}
    env["GG_HOME"] = str(home)
    env["GG_LOG_LEVEL"] = "info"
    env.update(extra or {})
    return env


@dataclass
class Daemon:
    """A full ggd (Unix socket + WebSocket) running in a subprocess."""

    home: Path
    workspace: Path
    env: dict[str, str]
    args: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    log: Path | None = None

    def start(self, timeout: float = 20) -> Daemon:
        """Spawn and wait for the discovery file."""
        disc = self.home / "run" / "ggd.json"
        disc.unlink(missing_ok=True)
        self.log = self.home.parent / f"ggd-{int(time.time() * 1000)}.log"
        cmd = [
            *GGD,
            "--ws",
            "127.0.0.1:0",
            "--token",
            TOKEN,
            "--workspace",
            str(self.workspace),
            *self.args,
        ]
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=self.env
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ggd exited early:\n{self.log.read_text()}")
            try:
                self.info = json.loads(disc.read_text())
                if self.info.get("pid") == self.proc.pid and Path(self.info["socket"]).exists():
                    return self
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        raise TimeoutError(f"ggd did not start:\n{self.log.read_text()}")

    @property
    def ws_url(self) -> str:
        """ws://127.0.0.1:PORT/ws"""
        return str(self.info["ws"])

    @property
    def http_url(self) -> str:
        """http://127.0.0.1:PORT/"""
        return str(self.info["http"])

    @property
    def socket(self) -> str:
        """The Unix socket path."""
        return str(self.info["socket"])

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> int:
        """Stop the daemon and return its exit code."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return int(self.proc.returncode)

    def logs(self) -> str:
        """What the daemon wrote to stderr."""
        return self.log.read_text(errors="replace") if self.log else ""

    async def connect(self, kind: str, root: Path | None = None) -> RpcClient:
        """A connected, initialized client over `kind` (unix, ws or stdio)."""
        c = await self.open(kind)
        await c.initialize(root or self.workspace)
        return c

    async def open(self, kind: str) -> RpcClient:
        """A connected client over `kind`, not yet initialized."""
        if kind == "unix":
            c = await RpcClient.unix(self.socket)
        elif kind == "ws":
            c = await RpcClient.ws(self.ws_url, TOKEN)
        elif kind == "stdio":
            c = await RpcClient.stdio(
                [*GGD, "--stdio", "--workspace", str(self.workspace)], self.env
            )
        else:
            raise ValueError(kind)
        return c


async def wait_until(pred: Any, timeout: float = 10, interval: float = 0.02) -> None:
    """Poll a predicate (bounded) — for file-system effects that have no event."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        await asyncio.sleep(interval)
    raise TimeoutError("condition not met")
