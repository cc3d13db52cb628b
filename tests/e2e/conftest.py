"""Fixtures for end-to-end tests: a temp GG_HOME and workspace, a running daemon, clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from .daemon import Daemon, daemon_env
from .rpc_client import RpcClient


@pytest.fixture
def gg_home(tmp_path: Path) -> Path:
    """An empty GG_HOME."""
    return tmp_path / "home"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace folder with a file in it."""
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "README.md").write_text("# demo project\n")
    return ws


@pytest.fixture
def daemon(gg_home: Path, workspace: Path) -> Iterator[Daemon]:
    """A full ggd with the Unix socket and WebSocket listeners."""
    d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    yield d
    d.stop()


@pytest.fixture(params=["stdio", "unix", "ws"])
def transport(request: pytest.FixtureRequest) -> str:
    """Each end-to-end test of a protocol area runs over every transport."""
    return str(request.param)


@pytest.fixture
async def client(daemon: Daemon, transport: str) -> AsyncIterator[RpcClient]:
    """An initialized client over the parametrised transport."""
    c = await daemon.connect(transport)
    yield c
    await c.close()


@pytest.fixture
def fake_daemon(gg_home: Path, workspace: Path) -> Iterator[Any]:
    """Factory: a daemon that talks to a scripted fake model; both stop at teardown."""
    from tests.fakes.fake_openai import FakeModel

    started: list[tuple[Daemon, FakeModel]] = []

    def make(
        script: Any, *args: str, env: dict[str, str] | None = None
    ) -> tuple[Daemon, FakeModel]:
        fm = FakeModel(script).start()
        env = daemon_env(
            gg_home,
            {
                "OPENAI_BASE_URL": fm.base_url,
                "OPENAI_API_KEY": "test-key",
                "GG_MODEL": "fake-model",
                **(env or {}),
            },
        )
        d = Daemon(gg_home, workspace, env, args=list(args)).start()
        started.append((d, fm))
        return d, fm

    yield make
    for d, fm in started:
        d.stop()
        fm.stop()
