"""A connection's workspace: a folder that does not exist is refused, never swapped for another."""

from __future__ import annotations

from pathlib import Path

import pytest

from .daemon import Daemon
from .rpc_client import RpcError

pytestmark = pytest.mark.timeout(60)


async def test_initialize_naming_a_missing_folder_is_refused(
    daemon: Daemon, transport: str, tmp_path: Path
) -> None:
    c = await daemon.open(transport)
    try:
        with pytest.raises(RpcError) as err:
            await c.initialize(tmp_path / "projj")
        assert err.value.code == -32008
        assert "does not exist" in err.value.message
    finally:
        await c.close()


async def test_initialize_with_an_existing_folder_uses_it(
    daemon: Daemon, transport: str, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    c = await daemon.open(transport)
    try:
        result = await c.initialize(other)
        assert result["capabilities"]["experimental"]["gg"]["workspace"]["name"] == "other"
    finally:
        await c.close()


async def test_workspace_open_serves_a_new_folder_and_refuses_bad_ones(
    daemon: Daemon, transport: str, tmp_path: Path
) -> None:
    other = tmp_path / "other-project"
    other.mkdir()
    c = await daemon.connect(transport)
    try:
        ref = await c.request("gg/workspace.open", {"root": str(other)})
        assert ref["name"] == "other-project" and ref["root"] == str(other.resolve())
        listed = await c.request("gg/workspace.list")
        assert ref["id"] in [w["id"] for w in listed["workspaces"]]
        for bad in (str(tmp_path / "nope"), "relative/folder"):
            with pytest.raises(RpcError) as err:
                await c.request("gg/workspace.open", {"root": bad})
            assert err.value.code == -32602
    finally:
        await c.close()
