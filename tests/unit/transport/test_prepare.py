"""prepare(): the handshake's cattrs functions are written inside the start-up window.

The client's `initialize` is typed by ggd.rpc.handshake (its capabilities by cattrs), so the
probe goes the way the daemon does."""

from __future__ import annotations

import json
import subprocess
import sys

# In a fresh interpreter (this one's shared converter may be warm already): count the code
# cattrs generates while a client's initialize/initialized and ggd's response go through.
PROBE = """
import json, os, sys
import cattrs.gen
from lsprotocol import types as lsp
from ggd.rpc.handshake import Handshake
from ggd.transport.endpoint import _shared_converter, prepare
if sys.argv[1] == "prepared":
    prepare()
generated = []
real = compile
cattrs.gen.compile = lambda src, fn, mode, *a, **k: generated.append(fn) or real(src, fn, mode, *a, **k)
conv = _shared_converter()
uri = "file:///tmp/ws"
req = Handshake.check(1, {
    "processId": 1, "clientInfo": {"name": "gg", "version": "0"}, "capabilities": {},
    "rootUri": uri, "workspaceFolders": [{"uri": uri, "name": "ws"}]}).request(conv)
conv.structure({"jsonrpc": "2.0", "method": "initialized", "params": {}}, lsp.InitializedNotification)
result = lsp.InitializeResult(capabilities=lsp.ServerCapabilities(), server_info=lsp.ServerInfo(name="ggd"))
wire = conv.unstructure(lsp.InitializeResponse(id=1, result=result))
print(json.dumps({"generated": generated, "root": req.params.root_uri, "wire": wire}))
"""


def _probe(mode: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_after_prepare_the_handshake_generates_no_code_and_reads_the_same() -> None:
    cold, warm = _probe("cold"), _probe("prepared")
    assert cold["generated"]  # what prepare() saves the first connection
    assert warm["generated"] == []
    assert warm["root"] == cold["root"] == "file:///tmp/ws"
    assert warm["wire"] == cold["wire"]
