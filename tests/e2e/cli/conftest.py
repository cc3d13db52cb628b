"""Fixtures for driving the real `gg` executable through pipes and a pseudo-terminal."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
GG = str(BIN / "gg")
_ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|[=>]|\][^\x07]*\x07)")


def strip_ansi(text: str) -> str:
    """Terminal output without escape sequences and carriage returns."""
    return _ANSI.sub("", text).replace("\r", "")


class Pty:
    """A process on a real pseudo-terminal (its controlling tty), with expect-style waiting."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        master, slave = os.openpty()
        # 40 rows x 120 columns (struct winsize is native-endian: pack it, do not spell bytes)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))

        def make_ctty() -> None:
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=make_ctty,
        )
        os.close(slave)
        self.master = master
        self.raw = ""
        self.pos = 0
        self._cond = threading.Condition()
        self._eof = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b""
            with self._cond:
                if not data:
                    self._eof = True
                    self._cond.notify_all()
                    return
                self.raw += data.decode("utf-8", "replace")
                self._cond.notify_all()

    @property
    def text(self) -> str:
        """Everything shown so far, escape sequences removed."""
        with self._cond:
            return strip_ansi(self.raw)

    def expect(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """Wait until the pattern appears after the previous match; fail with the screen."""
        rx = re.compile(pattern)
        found: list[re.Match[str]] = []

        def ready() -> bool:
            m = rx.search(strip_ansi(self.raw), self.pos)
            if m:
                found.append(m)
                return True
            return self._eof

        with self._cond:
            self._cond.wait_for(ready, timeout)
        if not found:
            raise AssertionError(f"{pattern!r} did not appear; screen was:\n{self.text}")
        self.pos = found[0].end()
        return found[0]

    def send(self, text: str) -> None:
        """Type text (use \\r for Enter, \\x03 for Ctrl+C, \\x04 for Ctrl+D)."""
        os.write(self.master, text.encode())

    def wait(self, timeout: float = 30.0) -> int:
        """Wait for the process to exit and return its code."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"gg did not exit; screen was:\n{self.text}") from None

    def close(self) -> None:
        """Kill the process if it still runs and release the terminal."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)
        try:
            os.close(self.master)
        except OSError:
            pass


@dataclass
class CliEnv:
    """One test's world: GG_HOME, a workspace, the environment and the processes started."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)
    ptys: list[Pty] = field(default_factory=list)
    model: Any = None  # the FakeModel serving a real ggd, when there is one

    @property
    def home(self) -> Path:
        """GG_HOME of this test."""
        return self.root / "home"

    @property
    def ws(self) -> Path:
        """The workspace folder gg runs in."""
        return self.root / "ws"

    def run(
        self, *args: str, input: str | None = None, timeout: float = 30.0, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run gg with pipes on stdin/stdout/stderr."""
        return subprocess.run(
            [GG, *args],
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            env=self.env,
            cwd=cwd or self.ws,
            timeout=timeout,
        )

    def popen(self, *args: str) -> subprocess.Popen[bytes]:
        """Start gg with pipes, for streaming tests."""
        return subprocess.Popen(
            [GG, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=self.ws,
        )

    def pty(self, *args: str) -> Pty:
        """Start gg on a pseudo-terminal."""
        p = Pty([GG, *args], self.env, self.ws)
        self.ptys.append(p)
        return p

    def discovery(self) -> dict[str, Any] | None:
        """The daemon's discovery file, if any."""
        try:
            return dict(json.loads((self.home / "run" / "ggd.json").read_text()))
        except (OSError, ValueError):
            return None

    def stop_daemon(self) -> None:
        """SIGTERM a daemon started under this GG_HOME and wait for it, bounded."""
        disc = self.discovery()
        if not disc:
            return
        pid = int(disc["pid"])
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        if not wait_for(lambda: not _alive(pid), 10):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # an exited child of ours that nobody reaped yet is gone for our purposes
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(pred: Any, timeout: float = 10.0, step: float = 0.01) -> bool:
    """Poll a predicate until true or timeout (for state outside this process)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(step)
    return bool(pred())


@pytest.fixture
def cli_env(tmp_path: Path) -> Iterator[CliEnv]:
    """A GG_HOME and workspace in tmp, colours off, and cleanup of daemons and terminals."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("GG_", "OPENAI_", "PYTEST_", "ANTHROPIC_", "GEMINI_", "GOOGLE_API_KEY")
        )
        and k not in ("NO_COLOR", "TERM")
    }
    env |= {"GG_HOME": str(tmp_path / "home"), "HOME": str(tmp_path), "NO_COLOR": "1"}
    env |= {"TERM": "xterm", "PYTHONUNBUFFERED": "1"}
    ce = CliEnv(tmp_path, env)
    ce.ws.mkdir()
    try:
        yield ce
    finally:
        for p in ce.ptys:
            p.close()
        ce.stop_daemon()


@pytest.fixture
def real_env(cli_env: CliEnv) -> Iterator[CliEnv]:
    """cli_env for the real ggd, its model being the scripted fake (add steps per test)."""
    from tests.fakes.fake_openai import FakeModel

    model = FakeModel([], models=["fake-model", "other"]).start()  # GET /v1/models lists these
    cli_env.env |= {"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "test"}
    cli_env.env |= {"GG_MODEL": "fake-model"}
    cli_env.model = model
    try:
        yield cli_env
    finally:
        cli_env.stop_daemon()
        model.stop()


def ggd_pids(home: Path) -> list[int]:
    """Pids of live ggd processes (socket or stdio) started with this GG_HOME."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or not _alive(int(pid)):
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(c.endswith(b"ggd") for c in cmd[:2]) and f"GG_HOME={home}".encode() in environ:
            out.append(int(pid))
    return out


def last_user(request: dict[str, Any]) -> str:
    """The text of the last user message the model was sent."""
    for m in reversed(request["messages"]):
        if m["role"] == "user":
            c = m["content"]
            return c if isinstance(c, str) else "".join(p.get("text", "") for p in c)
    return ""


class Lines:
    """Line-oriented access to a `gg rpc` child."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc

    def send(self, obj: Any) -> None:
        """Write one message (or a raw line) to gg rpc."""
        assert self.proc.stdin is not None
        raw = obj if isinstance(obj, str) else json.dumps(obj)
        self.proc.stdin.write(raw.encode() + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        """The next line gg rpc printed."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "gg rpc closed stdout"
        return dict(json.loads(line))

    def reply(self, rid: Any) -> dict[str, Any]:
        """The response to request rid, skipping notifications (ggd may notify first)."""
        return self.until(lambda m: "method" not in m and m.get("id") == rid)[-1]

    def until(self, pred: Any) -> list[dict[str, Any]]:
        """Messages up to and including the first one matching pred."""
        seen = []
        while True:
            msg = self.read()
            seen.append(msg)
            if pred(msg):
                return seen

    def close(self, timeout: float = 15) -> int:
        """End stdin and wait for gg rpc to exit; returns its code."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout)


def req(rid: Any, method: str, params: Any = None) -> dict[str, Any]:
    """A JSON-RPC request object."""
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg
