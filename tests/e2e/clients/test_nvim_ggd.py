"""The Neovim plugin against a real ggd and the scripted fake model: `ggd --stdio` and `gg bridge`."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

WRITE = {
    "toolCalls": [{"name": "write", "arguments": {"path": "notes.txt", "content": "hello\n"}}],
    "chunkSize": 7,
}


@pytest.fixture
def model() -> Iterator[Any]:
    """Start a fake model with a script: model(steps) -> FakeModel."""
    started: list[FakeModel] = []

    def make(steps: list[dict[str, Any]]) -> FakeModel:
        fm = FakeModel(steps).start()
        started.append(fm)
        return fm

    yield make
    for fm in started:
        fm.stop()


def _env(fm: FakeModel, gg_home: Path) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": fm.base_url,
        "OPENAI_API_KEY": "test",
        "GG_MODEL": "fake-model",
        "GG_HOME": str(gg_home),
    }


def _stdio(ggd_bin: Path, workspace: Path) -> list[str]:
    return [str(ggd_bin), "--stdio", "--exit-on-stdin-eof", "--workspace", str(workspace)]


def test_streams_into_the_chat_buffer(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model(
        [
            {"text": "Hello from the fake.\nSecond line.", "chunkSize": 4},
            {"text": "Again here.", "expect": {"lastUser": "again"}},
        ]
    )
    res = run_nvim(
        {
            "scenario": "stream",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "say hi",
            "prompt2": "again",
            "expect": ["## gg\n\nHello from the fake.\nSecond line."],
            "expect2": ["## You\n\nagain\n\n## gg\n\nAgain here."],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert fm.mismatches == []
    assert len(fm.requests) == 2


@pytest.mark.parametrize(("choice", "written"), [("Allow", True), ("Deny", False)])
def test_approval_answered_through_the_plugin(
    run_nvim, model, gg_home, workspace, ggd_bin, choice, written
) -> None:
    fm = model([WRITE, {"text": "Finished the turn."}])
    res = run_nvim(
        {
            "scenario": "approve_select",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "write notes",
            "choice": choice,
            "expect": ["**Approval needed:**", "Finished the turn."],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert "write" in res.data["selects"][0]["prompt"]
    assert (workspace / "notes.txt").exists() is written
    if written:
        assert (workspace / "notes.txt").read_text() == "hello\n"


def test_deny_command_answers_the_pending_approval(
    run_nvim, model, gg_home, workspace, ggd_bin
) -> None:
    fm = model([WRITE, {"text": "Understood, not writing."}])
    res = run_nvim(
        {
            "scenario": "approve_command",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "write notes",
            "command": "GGDeny",
            "expect": ["_Approval denied (user)._", "Understood, not writing."],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert not (workspace / "notes.txt").exists()


def test_cancel_stops_a_streaming_run(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model([{"text": "Thinking about it for a long while", "chunkSize": 3, "hang": True}])
    res = run_nvim(
        {
            "scenario": "cancel",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "take your time",
            "expect_before": "Thinking",
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error


def test_sessions_picker(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model([{"text": "First answer."}])
    res = run_nvim(
        {
            "scenario": "sessions",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "first question",
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert "First answer." in res.data["buffer"]


@pytest.fixture
def daemon(gg_home: Path, workspace: Path, ggd_bin: Path, model: Any) -> Iterator[Any]:
    """The user's daemon (Unix socket) in a temp GG_HOME; yields start(steps) -> env."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(steps: list[dict[str, Any]]) -> dict[str, str]:
        env = _env(model(steps), gg_home)
        proc = subprocess.Popen(
            [str(ggd_bin), "--workspace", str(workspace)],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=workspace,
        )
        procs.append(proc)
        discovery = gg_home / "run" / "ggd.json"
        deadline = time.monotonic() + 15
        while not discovery.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"ggd did not start: {proc.stderr.read().decode() if proc.stderr else ''}"
                )
            time.sleep(0.02)  # polling for the discovery file (a readiness predicate)
        return env

    yield start
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_bridge_to_the_shared_daemon(run_nvim, daemon, gg_home, workspace, gg_bin) -> None:
    env = daemon([WRITE, {"text": "Done through the bridge."}])
    res = run_nvim(
        {
            "scenario": "approve_select",
            "cmd": [str(gg_bin), "bridge"],
            "root": str(workspace),
            "prompt": "write notes",
            "choice": "Allow",
            "expect": ["Done through the bridge."],
        },
        env,
    )
    assert res.ok, res.error
    assert (workspace / "notes.txt").read_text() == "hello\n"


def test_sessions_without_runs_over_stdio(run_nvim, gg_home, workspace, ggd_bin) -> None:
    res = run_nvim(
        {"scenario": "new_and_pick", "cmd": _stdio(ggd_bin, workspace), "root": str(workspace)},
        {"GG_HOME": str(gg_home)},
    )
    assert res.ok, res.error
    assert res.data["workspace"]["name"] == workspace.name


def test_sessions_without_runs_through_gg_bridge(run_nvim, daemon, workspace, gg_bin) -> None:
    env = daemon([])
    res = run_nvim(
        {"scenario": "new_and_pick", "cmd": [str(gg_bin), "bridge"], "root": str(workspace)}, env
    )
    assert res.ok, res.error
    assert res.data["workspace"]["name"] == workspace.name


def test_gg_while_running_steers_the_turn(run_nvim, model, gg_home, workspace, ggd_bin) -> None:
    fm = model(
        [
            {
                "text": "Looking around first.",
                "chunkSize": 4,
                "delayMs": 150,
                "toolCalls": [{"name": "list", "arguments": {"path": "."}}],
            },
            {"text": "Steered answer.", "expect": {"lastUser": "also check the README"}},
        ]
    )
    res = run_nvim(
        {
            "scenario": "steer",
            "cmd": _stdio(ggd_bin, workspace),
            "root": str(workspace),
            "prompt": "look around",
            "steer": "also check the README",
            "expect_before": "Look",
            "expect": ["Steered answer."],
        },
        _env(fm, gg_home),
    )
    assert res.ok, res.error
    assert fm.mismatches == []


class SocketClient:
    """A minimal JSON-RPC client on the daemon's Unix socket (LSP framing), standing for another client."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(str(path))
        self.buf = b""
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request and return its result (notifications in between are skipped)."""
        self.next_id += 1
        body = json.dumps(
            {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        )
        self.sock.sendall(f"Content-Length: {len(body.encode())}\r\n\r\n".encode() + body.encode())
        while True:
            msg = self._read()
            if msg.get("id") == self.next_id:
                assert "error" not in msg, msg
                return msg["result"]

    def _read(self) -> dict[str, Any]:
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.sock.recv(65536)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        length = int(
            next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")).split(
                b":"
            )[1]
        )
        while len(self.buf) < length:
            self.buf += self.sock.recv(65536)
        body, self.buf = self.buf[:length], self.buf[length:]
        return json.loads(body)

    def close(self) -> None:
        """Close the connection."""
        self.sock.close()


def test_follows_a_turn_started_by_another_client(
    run_nvim, daemon, gg_home, workspace, gg_bin, tmp_path
) -> None:
    env = daemon([{"text": "Started elsewhere, seen here.", "chunkSize": 5}])
    signal_file = tmp_path / "session-id"

    def other_client() -> None:
        deadline = time.monotonic() + 20
        while not signal_file.exists() or not signal_file.read_text():
            assert time.monotonic() < deadline, "nvim did not create its session"
            time.sleep(0.02)  # polling for the file nvim writes (a predicate)
        client = SocketClient(gg_home / "run" / "ggd.sock")
        try:
            client.request(
                "initialize", {"processId": None, "capabilities": {}, "rootUri": workspace.as_uri()}
            )
            client.request(
                "gg/run.start",
                {
                    "sessionId": signal_file.read_text(),
                    "prompt": "from the other client",
                    "subscribe": False,
                },
            )
        finally:
            client.close()

    res = run_nvim(
        {
            "scenario": "follow",
            "cmd": [str(gg_bin), "bridge"],
            "root": str(workspace),
            "signal": str(signal_file),
            "expect": ["## gg\n\nStarted elsewhere, seen here."],
        },
        env,
        during=other_client,
    )
    assert res.ok, res.error
