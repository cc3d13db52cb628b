"""Daemon discovery and lifecycle against the stand-in daemon: auto-start, races, stale files."""

from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest

from .conftest import CliEnv, _alive, wait_for

pytestmark = pytest.mark.timeout(90)


def test_daemon_start_status_logs_stop(fake_env: CliEnv) -> None:
    r = fake_env.run("daemon", "status")
    assert r.returncode == 1 and "not running" in r.stdout
    r = fake_env.run("daemon", "start")
    assert r.returncode == 0, r.stderr
    disc = fake_env.discovery()
    assert disc is not None and f"pid {disc['pid']}" in r.stdout
    r = fake_env.run("daemon", "start")
    assert "running" in r.stdout and fake_env.discovery() == disc  # idempotent
    status = json.loads(fake_env.run("daemon", "status", "--json").stdout)
    assert status["running"] is True and status["pid"] == disc["pid"]
    assert stat.S_IMODE((fake_env.home / "logs").stat().st_mode) == 0o700
    (fake_env.home / "logs" / "ggd.log").write_text("line1\nline2\nline3\n")
    r = fake_env.run("daemon", "logs", "-n", "2")
    assert r.stdout == "line2\nline3\n"
    r = fake_env.run("daemon", "stop")
    assert r.returncode == 0 and "stopped" in r.stdout
    assert not _alive(disc["pid"])
    assert fake_env.run("daemon", "stop").stdout.strip() == "ggd is not running"


def test_autostart_is_detached_and_reused(fake_env: CliEnv) -> None:
    r = fake_env.run("-p", "one")
    assert r.returncode == 0, r.stderr
    disc = fake_env.discovery()
    assert disc is not None and _alive(disc["pid"])
    # Detached: its own session, so the terminal's signals and the gg's exit don't reach it.
    assert os.getsid(disc["pid"]) == disc["pid"]
    r = fake_env.run("-p", "two")
    assert fake_env.discovery() == disc
    names = json.loads(fake_env.run("sessions", "list", "--json").stdout)
    assert len(names) == 2  # both runs were served by the same daemon's memory


def test_stale_discovery_file_starts_a_new_daemon(fake_env: CliEnv) -> None:
    (fake_env.home / "run").mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = {"pid": dead.pid, "socket": str(fake_env.home / "run" / "ggd.sock")}
    (fake_env.home / "run" / "ggd.json").write_text(json.dumps(stale))
    r = fake_env.run("-p", "hi")
    assert r.returncode == 0, r.stderr
    disc = fake_env.discovery()
    assert disc is not None and disc["pid"] != dead.pid


@pytest.mark.parametrize("attempt", range(3))
def test_two_gg_starting_at_once_share_one_daemon(fake_env: CliEnv, attempt: int) -> None:
    procs = [fake_env.popen("-p", f"racer {i}") for i in range(3)]
    outs = [p.communicate(timeout=60) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err.decode()
        assert b"you said: racer" in out
    sessions = json.loads(fake_env.run("sessions", "list", "--json").stdout)
    assert len(sessions) == 3
    disc = fake_env.discovery()
    assert disc is not None
    assert wait_for(lambda: len(_fake_daemons(fake_env)) == 1, 10), _fake_daemons(fake_env)


def _fake_daemons(env: CliEnv) -> list[int]:
    """Pids of live stand-in daemons (socket mode) started with this test's GG_HOME."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if any(b"fake_ggd.py" in c for c in cmd) and b"--stdio" not in cmd:
            if f"GG_HOME={env.home}".encode() in environ and _alive(int(pid)):
                out.append(int(pid))
    return out


def test_no_daemon_leaves_no_daemon_behind(fake_env: CliEnv) -> None:
    r = fake_env.run("--no-daemon", "-p", "hi")
    assert r.returncode == 0, r.stderr
    assert fake_env.discovery() is None
    assert _fake_daemons(fake_env) == []
