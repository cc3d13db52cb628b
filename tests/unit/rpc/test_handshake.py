"""`initialize` is validated once: the gate's strict check types it for pygls, no second pass."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types as lsp

from ggd.protocol import errors as E
from ggd.rpc.handshake import Handshake
from ggd.transport.endpoint import _shared_converter

RICH: dict[str, Any] = {
    "processId": 4242,
    "clientInfo": {"name": "vim", "version": "9"},
    "locale": "fr",
    "rootPath": "/tmp/ws",
    "rootUri": "file:///tmp/ws",
    "initializationOptions": {"workspaceId": "w_1", "batchFrames": True},
    "capabilities": {
        "window": {"workDoneProgress": True, "showDocument": {"support": True}},
        "general": {"positionEncodings": ["utf-16"]},
        "experimental": {"x": 1},
    },
    "trace": "messages",
    "workDoneToken": "t-1",
    "workspaceFolders": [{"uri": "file:///tmp/ws", "name": "ws"}],
    "someFutureField": {"ignored": True},
}


def test_the_typed_request_is_what_pygls_would_have_structured() -> None:
    conv = _shared_converter()
    ours = Handshake.check(7, RICH).request(conv)
    body = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": RICH}
    assert ours == conv.structure(body, lsp.InitializeRequest)
    minimal = Handshake.check("a", {"processId": None, "capabilities": {}}).request(conv)
    assert minimal.params.workspace_folders is None and minimal.params.trace is None


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"processId": "1", "capabilities": {}}, "processId"),
        ({"processId": None}, "capabilities"),
        ({"capabilities": {}, "trace": "loud"}, "trace"),
        (
            {"capabilities": {}, "workspaceFolders": [{"uri": 1, "name": "x"}]},
            "workspaceFolders.0.uri",
        ),
        ([], "params must be an object"),
    ],
)
def test_a_bad_field_is_named_by_the_one_check(params: Any, named: str) -> None:
    with pytest.raises(E.InvalidParamsError, match=r"^invalid params: ") as info:
        Handshake.check(1, params)
    assert named in info.value.message


def test_bad_client_capabilities_are_named_with_their_path() -> None:
    checked = Handshake.check(1, {"capabilities": {"window": 5}})
    with pytest.raises(E.InvalidParamsError) as info:
        checked.request(_shared_converter())
    assert "@ capabilities.window" in info.value.message and len(info.value.message) <= 200
