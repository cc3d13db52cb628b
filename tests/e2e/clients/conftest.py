"""Fixtures for the client tests: headless Neovim runs, a scripted model, a second client, ggd paths."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon
from tests.e2e.rpc_client import RpcClient
from tests.fakes.fake_openai import FakeModel

REPO = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
NVIM_PLUGIN = REPO / "clients" / "nvim"
BIN = Path(sys.executable).parent


@dataclass
class NvimResult:
    """What a scenario run reported."""

    ok: bool
    error: str | None
    data: dict[str, Any]
    returncode: int
    stderr: str


@pytest.fixture
def ggd_bin() -> Path:
    """The ggd console script of this venv."""
    return BIN / "ggd"


@pytest.fixture
def gg_bin() -> Path:
    """The gg console script of this venv."""
    return BIN / "gg"


@pytest.fixture
def gg_home(tmp_path: Path) -> Path:
    """A private GG_HOME."""
    home = tmp_path / "gghome"
    home.mkdir()
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A private workspace directory."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def run_nvim(tmp_path: Path) -> Iterator[Any]:
    """Run one scenario of nvim/scenarios.lua headless; returns NvimResult."""
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.fail("nvim is not installed (Debian package neovim)")

    def run(
        args: dict[str, Any],
        env: dict[str, str],
        timeout: float = 60,
        during: Callable[[], None] | None = None,
    ) -> NvimResult:
        result = tmp_path / f"nvim-{args['scenario']}.json"
        full_env = {
            **os.environ,
            **env,
            "GG_TEST_ARGS": json.dumps(args),
            "GG_TEST_RESULT": str(result),
            "GG_TEST_HARNESS": str(HERE / "nvim" / "harness.lua"),
            "HOME": str(tmp_path),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        }
        cmd = [
            nvim,
            "--headless",
            "--clean",
            "--cmd",
            f"set rtp^={NVIM_PLUGIN}",
            "-c",
            f"luafile {HERE / 'nvim' / 'scenarios.lua'}",
        ]
        proc = subprocess.Popen(
            cmd,
            env=full_env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        try:
            if during is not None:
                during()  # another client acts while nvim waits for it
            _, stderr = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        if not result.exists():
            pytest.fail(f"nvim wrote no result (rc={proc.returncode}): {stderr[-2000:]}")
        out = json.loads(result.read_text())
        return NvimResult(
            out["ok"], out.get("error"), out.get("data") or {}, proc.returncode, stderr
        )

    yield run


@pytest.fixture
def model() -> Iterator[Callable[[list[dict[str, Any]]], FakeModel]]:
    """Start a scripted fake model: model(steps) -> FakeModel; stopped at teardown."""
    started: list[FakeModel] = []

    def make(steps: list[dict[str, Any]]) -> FakeModel:
        fm = FakeModel(steps).start()
        started.append(fm)
        return fm

    yield make
    for fm in started:
        fm.stop()


@pytest.fixture
def peer() -> Callable[..., Any]:
    """Act as a second client on a daemon's Unix socket: peer(daemon, fn, root=None) -> fn's result."""

    def act(d: Daemon, fn: Callable[[RpcClient], Awaitable[Any]], root: Path | None = None) -> Any:
        async def go() -> Any:
            c = await d.connect("unix", root)
            try:
                return await fn(c)
            finally:
                await c.close()

        return asyncio.run(go())

    return act
