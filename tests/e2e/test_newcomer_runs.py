"""Newcomer fixes at the run layer: the user's PATH in bash, turn limits that fit real tasks."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

from .daemon import Daemon, daemon_env
from .runs_helpers import finish, new_session, start


@pytest.fixture
def model_daemon(gg_home: Path, workspace: Path) -> Iterator[Any]:
    """Factory: a daemon on a scripted model, with extra env and flags."""
    started: list[tuple[Daemon, FakeModel]] = []

    def make(
        script: Any, *args: str, env: dict[str, str] | None = None, config: Any = None
    ) -> tuple[Daemon, FakeModel]:
        fm = FakeModel(script).start()
        if config is not None:
            gg_home.mkdir(exist_ok=True)
            (gg_home / "config.json").write_text(json.dumps(config))
        extra = {"OPENAI_BASE_URL": fm.base_url, "OPENAI_API_KEY": "k", "GG_MODEL": "fake-model"}
        d = Daemon(gg_home, workspace, daemon_env(gg_home, {**extra, **(env or {})}), list(args))
        started.append((d.start(), fm))
        return d, fm

    yield make
    for d, fm in started:
        d.stop()
        fm.stop()


def _fake_venv(tmp: Path) -> Path:
    """A folder with a `python` that says who it is, as an activated venv puts first on PATH."""
    bin_dir = tmp / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    exe = bin_dir / "python"
    exe.write_text('#!/bin/sh\necho fake-venv-python "$@"\n')
    exe.chmod(0o755)
    return bin_dir


def _bash_result(c: Any, rid: str) -> dict[str, Any]:
    done = [e for e in c.events(run_id=rid) if e["type"] == "tool_call_finish"]
    assert done, [e["type"] for e in c.events(run_id=rid)]
    return dict(done[0])


BASH_PYTHON = [
    {"toolCalls": [{"name": "bash", "arguments": {"command": "python -m pytest -q"}}]},
    {"text": "ran it"},
]


async def test_bash_sees_the_daemons_path(model_daemon: Any, tmp_path: Path) -> None:
    venv = _fake_venv(tmp_path)
    path = f"{venv}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    d, _ = model_daemon(BASH_PYTHON, env={"PATH": path})
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "run the tests", approvalMode="yolo")
        end = await finish(c, rid)
        assert end["type"] == "run_completed", end
        res = _bash_result(c, rid)
        assert "fake-venv-python -m pytest -q" in res["output"], res
        assert res["details"]["exitCode"] == 0
    finally:
        await c.close()


async def test_bash_login_shell_only_when_configured(model_daemon: Any, tmp_path: Path) -> None:
    """bashLoginShell: true runs `bash -lc`, which (on Debian) re-reads /etc/profile's PATH."""
    venv = _fake_venv(tmp_path)
    path = f"{venv}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    script = [
        {
            "toolCalls": [
                {"name": "bash", "arguments": {"command": "shopt -q login_shell; echo $?"}}
            ]
        },
        {"text": "ok"},
    ]
    d, _ = model_daemon(script, env={"PATH": path}, config={"bashLoginShell": True})
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "which shell", approvalMode="yolo")
        assert (await finish(c, rid))["type"] == "run_completed"
        # `shopt -q login_shell` exits 0 in a login shell
        assert _bash_result(c, rid)["output"].startswith("0"), _bash_result(c, rid)
    finally:
        await c.close()


async def test_a_hundred_step_task_finishes_under_the_default_limit(
    model_daemon: Any, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("x\n")
    # Each step a different call: 100 identical ones would be a loop, which the loop guard stops.
    steps: list[dict[str, Any]] = [
        {"toolCalls": [{"name": "read", "arguments": {"path": "a.txt", "limit": i + 1}}]}
        for i in range(100)
    ]
    steps.append({"text": "all 100 steps done"})
    d, _ = model_daemon(steps)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "a long task")
        end = await finish(c, rid, timeout=120)
        assert end["type"] == "run_completed", end
        assert end["content"] == "all 100 steps done"
    finally:
        await c.close()


async def test_the_turn_limit_says_which_limit_and_how_to_raise_it(model_daemon: Any) -> None:
    loop = {"toolCalls": [{"name": "list", "arguments": {"path": "."}}], "repeat": 10}
    d, _ = model_daemon([loop], "--max-turns", "3")
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "loop forever")
        end = await finish(c, rid)
        assert end["type"] == "run_failed" and end["errorCode"] == "turn_limit", end
        assert "3 model requests" in end["error"]
        assert "--max-turns N" in end["error"] and '"maxTurns"' in end["error"]
    finally:
        await c.close()


async def test_sigterm_with_clients_connected_logs_no_traceback(model_daemon: Any) -> None:
    d, _ = model_daemon([{"text": "hi"}])
    clients = [await d.connect("unix"), await d.connect("unix")]
    try:
        assert d.stop() == 0
    finally:
        for c in clients:
            await c.close()
    assert "Traceback" not in d.logs() and "CancelledError" not in d.logs(), d.logs()
