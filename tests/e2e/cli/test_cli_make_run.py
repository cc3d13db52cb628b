"""`ggd --ws` (what `make run` runs) after gg auto-started a daemon ends with a working UI URL."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from .conftest import CliEnv, _alive, wait_for

pytestmark = pytest.mark.timeout(90)
GGD = str(Path(sys.executable).parent / "ggd")
URL = re.compile(r"gg web UI: (http://127\.0\.0\.1:\d+/)#token=(\S+)")


class Foreground:
    """ggd in the foreground, as `make run` starts it, with its stderr collected."""

    def __init__(self, env: CliEnv, *args: str) -> None:
        self.proc = subprocess.Popen(
            [GGD, *args], env=env.env, cwd=env.ws, stderr=subprocess.PIPE, text=True
        )
        self.err = ""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._lock:
                self.err += line

    def url(self) -> re.Match[str]:
        assert wait_for(lambda: URL.search(self.err) is not None, 20), self.err
        m = URL.search(self.err)
        assert m is not None
        return m

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self._reader.join(5)


def _healthy(base: str) -> bool:
    with urllib.request.urlopen(base + "healthz", timeout=10) as resp:
        return resp.status == 200


def test_ws_after_an_auto_started_daemon_replaces_it(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "hi"}])
    assert real_env.run("-p", "hi").returncode == 0  # auto-starts ggd without WebSocket
    old = real_env.discovery()
    assert old is not None and old["http"] is None and old["idleExit"]
    log = real_env.home / "logs" / "ggd.log"
    fg = Foreground(real_env, "--ws", "127.0.0.1:0", "--log-file", str(log))
    try:
        m = fg.url()
        assert "restarting the background ggd" in fg.err
        assert _healthy(m.group(1))
        assert wait_for(lambda: not _alive(old["pid"]), 10)  # it released the lock, then exits
        disc = real_env.discovery()
        assert disc is not None and disc["pid"] == fg.proc.pid and disc["token"] == m.group(2)
        # A second `make run` prints the URL of the one running and exits 0.
        again = subprocess.run(
            [GGD, "--ws", "127.0.0.1:0"],
            env=real_env.env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert again.returncode == 0, again.stderr
        assert f"gg web UI: {m.group(1)}#token={m.group(2)}" in again.stderr
        assert fg.proc.poll() is None  # the running one was left alone
        # gg uses the daemon with the web UI; `gg daemon logs` reads the --log-file make run passes
        real_env.model.add_steps([{"text": "through the ui daemon"}])
        assert real_env.run("-p", "x").stdout == "through the ui daemon\n"
        assert real_env.discovery() == disc
        r = real_env.run("daemon", "logs", "-n", "50")
        assert r.returncode == 0 and "ggd started" in r.stdout, r.stdout
    finally:
        fg.stop()


def test_ws_next_to_a_daemon_started_by_hand_says_how_to_proceed(real_env: CliEnv) -> None:
    assert real_env.run("daemon", "start").returncode == 0  # explicit: not gg's to replace
    disc = real_env.discovery()
    assert disc is not None
    r = subprocess.run(
        [GGD, "--ws", "127.0.0.1:0"], env=real_env.env, capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 1
    assert f"ggd (pid {disc['pid']}) is already running without the web UI" in r.stderr
    assert "gg daemon stop" in r.stderr and "Traceback" not in r.stderr
    assert _alive(disc["pid"])


def test_demo_and_workspace_are_announced(cli_env: CliEnv) -> None:
    fg = Foreground(cli_env, "--ws", "127.0.0.1:0", "--workspace", str(cli_env.ws))
    try:
        fg.url()
        assert wait_for(lambda: "demo model is active" in fg.err, 10), fg.err
        assert f"gg workspace: {cli_env.ws}" in fg.err
    finally:
        fg.stop()


def test_make_run_defaults_to_a_workspace_outside_the_checkout() -> None:
    repo = Path(__file__).resolve().parents[3]
    r = subprocess.run(
        ["make", "-n", "-C", str(repo), "run", "HOME=/home/someone"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    cmd = next(ln for ln in r.stdout.splitlines() if "ggd --ws" in ln)
    assert '--workspace "/home/someone/gg-workspace"' in cmd
    assert "--log-file" in cmd
    r = subprocess.run(
        ["make", "-n", "-C", str(repo), "run", "WORKSPACE=/tmp/elsewhere"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert '--workspace "/tmp/elsewhere"' in r.stdout


def test_ws_on_a_taken_port_keeps_the_background_daemon(real_env: CliEnv) -> None:
    import socket

    real_env.model.add_steps([{"text": "hi"}])
    assert real_env.run("-p", "hi").returncode == 0  # auto-starts ggd without WebSocket
    old = real_env.discovery()
    assert old is not None and old["idleExit"]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        r = subprocess.run(
            [GGD, "--ws", f"127.0.0.1:{port}"],
            env=real_env.env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert r.returncode != 0
    assert f"port {port} on 127.0.0.1 is already in use" in r.stderr, r.stderr
    assert "keeps running" in r.stderr and "Traceback" not in r.stderr
    assert _alive(old["pid"])  # it was not stopped for a port that could not be had
    assert real_env.discovery() == old


def test_ws_port_out_of_range_is_a_clear_error(cli_env: CliEnv) -> None:
    r = subprocess.run(
        [GGD, "--ws", "127.0.0.1:99999"],
        env=cli_env.env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode != 0
    assert "port must be 0-65535" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_make_run_expands_a_tilde_in_workspace() -> None:
    repo = Path(__file__).resolve().parents[3]
    r = subprocess.run(
        ["make", "-n", "-C", str(repo), "run", "HOME=/home/someone", "WORKSPACE=~/code/proj"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    cmd = next(ln for ln in r.stdout.splitlines() if "ggd --ws" in ln)
    assert '--workspace "/home/someone/code/proj"' in cmd


def test_the_ui_token_survives_a_restart_until_rotated(cli_env: CliEnv) -> None:
    first = Foreground(cli_env, "--ws", "127.0.0.1:0")
    try:
        token = first.url().group(2)
        r = cli_env.run("daemon", "url")
        assert r.returncode == 0 and r.stdout.strip().endswith(f"#token={token}"), r.stdout
    finally:
        first.stop()
    token_file = cli_env.home / "ws-token"
    assert token_file.stat().st_mode & 0o777 == 0o600
    again = Foreground(cli_env, "--ws", "127.0.0.1:0")
    try:
        assert again.url().group(2) == token  # an open tab's link still works
    finally:
        again.stop()
    rotated = Foreground(cli_env, "--ws", "127.0.0.1:0", "--rotate-token")
    try:
        assert rotated.url().group(2) != token
    finally:
        rotated.stop()
    r = cli_env.run("daemon", "url")
    assert r.returncode == 1 and "ggd is not running" in r.stderr
