"""`gg job` with the real gg and ggd: add warns without a daemon, list/show/run/log/pause/remove."""

from __future__ import annotations

import json

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)


def test_job_commands_end_to_end(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "Checked: all fine."}])
    r = real_env.run(
        "job", "add", "--cron", "30 2 * * *", "--name", "Nightly", "--timezone",
        "Europe/Berlin", "--timeout", "5m", "check", "the", "build",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "no ggd was running to fire this job" in r.stderr  # gg started one just now
    assert r.stdout.startswith("added Nightly (j_") and "CE" in r.stdout
    r = real_env.run("job", "add", "--cron", "@daily", "--name", "nightly", "x")
    assert r.returncode == 1 and "already exists" in r.stderr
    assert "no ggd was running" not in r.stderr  # the daemon runs now
    r = real_env.run("job", "add", "--cron", "0 25 * * *", "--name", "bad", "x")
    assert r.returncode == 1 and "schedule" in r.stderr and "Traceback" not in r.stderr
    r = real_env.run("job", "add", "--in", "soon", "--name", "bad", "x")
    assert r.returncode == 2 and "not a duration" in r.stderr
    r = real_env.run("job", "list")
    assert r.returncode == 0 and r.stdout.startswith("Nightly  cron 30 2 * * *  Europe/Berlin")
    job = json.loads(real_env.run("job", "show", "nightly", "--json").stdout)["job"]
    assert job["timeout"] == 300 and job["prompt"] == "check the build"
    r = real_env.run("job", "run", "Nightly", "--wait")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Nightly: ok  session s_") and "Checked: all fine." in r.stdout
    r = real_env.run("job", "log", "Nightly")
    assert " ok " in r.stdout and "Checked: all fine." in r.stdout
    assert "paused" in real_env.run("job", "pause", "Nightly").stdout
    assert "Nightly (paused)" in real_env.run("job", "list").stdout
    assert "resumed" in real_env.run("job", "resume", "Nightly").stdout
    assert "removed" in real_env.run("job", "remove", "Nightly").stdout
    r = real_env.run("job", "show", "Nightly")
    assert r.returncode == 1 and "no job" in r.stderr


def test_job_add_without_daemon_warns_it_will_not_fire(cli_env: CliEnv) -> None:
    r = cli_env.run("job", "add", "--no-daemon", "--in", "1h", "--name", "later", "do it")
    assert r.returncode == 0, r.stderr
    assert "does not fire jobs" in r.stderr
    jobs = json.loads((cli_env.home / "scheduler" / "jobs.json").read_text())["jobs"]
    assert [j["name"] for j in jobs] == ["later"] and jobs[0]["kind"] == "once"
