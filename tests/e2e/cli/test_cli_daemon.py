"""Daemon discovery and lifecycle with the real ggd: auto-start, races, stale files, commands."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import urllib.request

import pytest

from .conftest import CliEnv, _alive, ggd_pids, wait_for

pytestmark = pytest.mark.timeout(90)


def test_daemon_start_status_logs_stop(real_env: CliEnv) -> None:
    r = real_env.run("daemon", "status")
    assert r.returncode == 1 and "not running" in r.stdout
    r = real_env.run("daemon", "start")
    assert r.returncode == 0, r.stderr
    disc = real_env.discovery()
    assert disc is not None and _alive(disc["pid"]) and f"pid {disc['pid']}" in r.stdout
    r = real_env.run("daemon", "start")
    assert "running" in r.stdout and real_env.discovery() == disc  # idempotent
    status = json.loads(real_env.run("daemon", "status", "--json").stdout)
    assert status["running"] is True and status["pid"] == disc["pid"]
    assert status["protocolVersion"].startswith("1.")
    assert real_env.run("daemon", "status").returncode == 0
    logs = real_env.home / "logs"
    assert stat.S_IMODE(logs.stat().st_mode) == 0o700
    assert wait_for(lambda: (logs / "ggd.log").exists() and (logs / "ggd.log").stat().st_size > 0)
    r = real_env.run("daemon", "logs", "-n", "2", "--json")
    assert r.returncode == 0, r.stderr
    tail = (logs / "ggd.log").read_text().splitlines()[-2:]
    assert r.stdout.splitlines() == tail and len(tail) == 2
    # Without --json the lines are for a person: time, level, logger: message, then fields.
    r = real_env.run("daemon", "logs", "-n", "50")
    assert r.returncode == 0, r.stderr
    started = next(ln for ln in r.stdout.splitlines() if "ggd started" in ln)
    assert re.fullmatch(
        r"\d\d:\d\d:\d\d info +ggd\.daemon: ggd started  pid=\d+ private=False", started
    )
    assert "{" not in r.stdout
    r = real_env.run("daemon", "stop")
    assert r.returncode == 0 and "stopped" in r.stdout
    assert not _alive(disc["pid"])
    assert real_env.discovery() is None
    assert real_env.run("daemon", "stop").stdout.strip() == "ggd is not running"
    assert real_env.run("daemon", "status").returncode == 1


def test_autostart_is_detached_and_reused(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "one"}, {"text": "two"}])
    r = real_env.run("-p", "one")
    assert r.returncode == 0, r.stderr
    disc = real_env.discovery()
    assert disc is not None and _alive(disc["pid"])
    # Detached: its own session, so the terminal's signals and the gg's exit don't reach it.
    assert os.getsid(disc["pid"]) == disc["pid"]
    assert (real_env.home / "logs" / "ggd.log").exists()
    r = real_env.run("-p", "two")
    assert r.returncode == 0 and r.stdout == "two\n", r.stderr
    assert real_env.discovery() == disc  # the second gg used the same daemon
    sessions = json.loads(real_env.run("sessions", "list", "--json").stdout)
    assert len(sessions) == 2
    assert ggd_pids(real_env.home) == [disc["pid"]]


def test_stale_discovery_file_starts_a_new_daemon(real_env: CliEnv) -> None:
    (real_env.home / "run").mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = {"pid": dead.pid, "socket": str(real_env.home / "run" / "ggd.sock")}
    (real_env.home / "run" / "ggd.json").write_text(json.dumps(stale))
    real_env.model.add_steps([{"text": "fresh"}])
    r = real_env.run("-p", "hi")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "fresh\n"
    disc = real_env.discovery()
    assert disc is not None and disc["pid"] != dead.pid and _alive(disc["pid"])


@pytest.mark.parametrize("attempt", range(2))
def test_concurrent_starts_end_on_one_daemon(real_env: CliEnv, attempt: int) -> None:
    real_env.model.add_steps([{"text": "you said: racer", "repeat": 3}])
    procs = [real_env.popen("-p", f"racer {i}") for i in range(3)]
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()
        assert out == b"you said: racer\n"
    sessions = json.loads(real_env.run("sessions", "list", "--json").stdout)
    assert len(sessions) == 3
    disc = real_env.discovery()
    assert disc is not None
    # The losers' ggd exit on the single-instance lock; only the winner stays.
    assert wait_for(lambda: ggd_pids(real_env.home) == [disc["pid"]], 10), ggd_pids(real_env.home)


def test_no_daemon_leaves_no_daemon_behind(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "private"}])
    r = real_env.run("--no-daemon", "-p", "hi")
    assert r.returncode == 0 and r.stdout == "private\n", r.stderr
    assert real_env.discovery() is None
    assert wait_for(lambda: ggd_pids(real_env.home) == [], 10), ggd_pids(real_env.home)


def test_daemon_start_with_websocket_prints_the_web_ui(real_env: CliEnv) -> None:
    r = real_env.run("daemon", "start", "--ws", "127.0.0.1:0")
    assert r.returncode == 0, r.stderr
    disc = real_env.discovery()
    assert disc is not None and disc["http"] and disc["token"]
    assert f"web UI: {disc['http']}#token={disc['token']}" in r.stdout
    with urllib.request.urlopen(disc["http"] + "healthz", timeout=10) as resp:
        assert resp.status == 200
    # An explicitly started daemon serves the CLI like an auto-started one.
    assert real_env.run("sessions", "list").returncode == 0
    assert real_env.discovery() == disc
