"""Sessions of other workspaces: listed with --all, and -r from the wrong folder says where to go."""

from __future__ import annotations

import json

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)


def test_resume_from_another_folder_names_the_folder_and_the_command(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "made in the project"}])
    r = real_env.run("-p", "hello")
    assert r.returncode == 0, r.stderr
    listed = json.loads(real_env.run("--json", "sessions").stdout)
    session_id = listed[0]["id"]
    other = real_env.root / "elsewhere"
    other.mkdir()

    r = real_env.run("-r", session_id, "-p", "again", cwd=other)
    assert r.returncode == 1, (r.stdout, r.stderr)
    root = str(real_env.ws.resolve())
    assert f"belongs to the workspace {root}" in r.stderr
    assert f"gg --workspace {root} -r {session_id}" in r.stderr
    assert len(real_env.model.requests) == 1  # the refused resume never reached the model

    here = real_env.run("sessions", cwd=other)
    assert here.returncode == 0, here.stderr
    assert "gg sessions --all" in here.stdout
    every = real_env.run("sessions", "--all", cwd=other)
    assert every.returncode == 0, every.stderr
    assert session_id in every.stdout and f"[{root}]" in every.stdout
    rows = json.loads(real_env.run("--json", "sessions", "--all", cwd=other).stdout)
    assert [(s["id"], s["workspace"]["root"]) for s in rows] == [(session_id, root)]
