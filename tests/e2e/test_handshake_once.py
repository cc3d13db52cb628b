"""`initialize` checked once at the gate, on a real daemon: its errors name the field, and the
lifecycle is decided there alone (an editor command before `initialize` never reaches pygls)."""

from __future__ import annotations

import pytest

from .daemon import Daemon
from .rpc_client import RpcError


@pytest.mark.parametrize("kind", ["unix", "ws"])
async def test_bad_client_capabilities_are_named_and_the_connection_goes_on(
    daemon: Daemon, kind: str
) -> None:
    c = await daemon.open(kind)
    try:
        with pytest.raises(RpcError) as exc:
            await c.request("initialize", {"processId": None, "capabilities": {"window": 5}})
        assert (exc.value.code, exc.value.symbol) == (-32602, "invalid_params")
        assert "capabilities.window" in exc.value.message
        init = await c.request(
            "initialize",
            {
                "processId": None,
                "capabilities": {"window": {"workDoneProgress": True}},
                "workspaceFolders": [{"uri": daemon.workspace.as_uri(), "name": "ws"}],
                "trace": "off",
            },
        )
        assert init["capabilities"]["experimental"]["gg"]["protocolVersion"]
        assert init["capabilities"]["executeCommandProvider"]["commands"]
    finally:
        await c.close()


async def test_an_editor_command_before_initialize_is_refused_by_the_gate(daemon: Daemon) -> None:
    c = await daemon.open("unix")
    try:
        with pytest.raises(RpcError) as exc:
            await c.request(
                "workspace/executeCommand", {"command": "gg.ask", "arguments": ["hello"]}
            )
        assert (exc.value.code, exc.value.symbol) == (-32002, "not_initialized")
    finally:
        await c.close()
