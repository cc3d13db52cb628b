"""The daemon process: GG_HOME, config, single instance, discovery, logs, signals, sidecars."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

from .daemon import GGD, TOKEN, Daemon, daemon_env
from .rpc_client import RpcClient


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_state_is_owner_only_and_existing_paths_are_tightened(
    gg_home: Path, workspace: Path
) -> None:
    gg_home.mkdir(mode=0o755)
    os.chmod(gg_home, 0o755)
    (gg_home / "config.json").write_text("{}")
    os.chmod(gg_home / "config.json", 0o644)
    d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    try:
        assert _mode(gg_home) == 0o700
        assert _mode(gg_home / "config.json") == 0o600
        assert _mode(gg_home / "sessions") == 0o700
        assert _mode(gg_home / "run" / "ggd.json") == 0o600
        assert _mode(Path(d.socket)) == 0o600
        info = json.loads((gg_home / "run" / "ggd.json").read_text())
        assert info["pid"] == d.proc.pid and info["token"] == TOKEN
        assert info["ws"].startswith("ws://127.0.0.1:") and info["protocolVersion"] == "1.0"
    finally:
        assert d.stop() == 0
    # a clean stop removes the discovery file and the socket
    assert not (gg_home / "run" / "ggd.json").exists()
    assert not (gg_home / "run" / "ggd.sock").exists()


def test_a_second_daemon_refuses_and_a_crashed_one_never_blocks(
    gg_home: Path, workspace: Path
) -> None:
    env = daemon_env(gg_home)
    d = Daemon(gg_home, workspace, env).start()
    try:
        second = subprocess.run(
            [*GGD], env=env, capture_output=True, text=True, timeout=30, cwd=workspace
        )
        assert second.returncode == 1 and "already running" in second.stderr
    finally:
        d.stop(signal.SIGKILL)
    # the crashed daemon left its discovery file behind; a fresh start takes over
    assert (gg_home / "run" / "ggd.json").exists()
    d2 = Daemon(gg_home, workspace, env).start()
    try:
        assert d2.info["pid"] == d2.proc.pid
    finally:
        d2.stop()


def test_config_errors_name_the_key(gg_home: Path, workspace: Path) -> None:
    gg_home.mkdir()
    (gg_home / "config.json").write_text(json.dumps({"maxActiveRuns": "lots"}))
    proc = subprocess.run(
        [*GGD, "--private"], env=daemon_env(gg_home), capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and "maxActiveRuns" in proc.stderr
    (gg_home / "config.json").write_text(json.dumps({"providers": {"openai": {"baseURL": "x"}}}))
    proc = subprocess.run(
        [*GGD, "--private"], env=daemon_env(gg_home), capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and "providers.openai.baseURL" in proc.stderr
    (gg_home / "config.json").write_text("{not json")
    proc = subprocess.run(
        [*GGD, "--private"], env=daemon_env(gg_home), capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and "config.json" in proc.stderr


async def test_logs_are_json_lines_with_connection_fields(daemon: Daemon) -> None:
    c = await daemon.connect("unix")
    await c.request("gg/system.info")
    await c.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "connection closed" not in daemon.logs():
        await asyncio.sleep(0.02)
    records = [json.loads(line) for line in daemon.logs().splitlines() if line.startswith("{")]
    opened = [r for r in records if r["msg"] == "connection opened"]
    assert opened and opened[0]["transport"] == "unix" and isinstance(opened[0]["conn"], int)
    assert all({"ts", "level", "logger", "msg"} <= set(r) for r in records)
    assert (
        TOKEN not in daemon.logs().split("gg web UI:")[-1].split("\n", 1)[-1]
    )  # only the banner has it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_sidecar_exits_when_its_parent_closes_stdin(
    tmp_path: Path, workspace: Path
) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            *GGD,
            "--ws",
            f"127.0.0.1:{port}",
            "--token",
            TOKEN,
            "--exit-on-stdin-eof",
            "--workspace",
            str(workspace),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=daemon_env(tmp_path / "h"),
    )
    try:
        c = None
        for _ in range(500):
            try:
                c = await RpcClient.ws(f"ws://127.0.0.1:{port}/ws", TOKEN)
                break
            except OSError:
                await asyncio.sleep(0.02)
        assert c is not None
        res = await c.initialize(workspace)
        assert res["serverInfo"]["name"] == "ggd"
        # a sidecar is private: no discovery file, no lock
        assert not (tmp_path / "h" / "run" / "ggd.json").exists()
        t0 = time.monotonic()
        assert proc.stdin is not None
        proc.stdin.close()
        await asyncio.to_thread(proc.wait, 5)
        assert time.monotonic() - t0 < 2.0
        assert proc.returncode == 0
        await c.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigint_stops_cleanly(gg_home: Path, workspace: Path) -> None:
    d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    assert d.stop(signal.SIGINT) == 0
    assert "shutdown requested" in d.logs()
