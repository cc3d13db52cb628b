"""ggd.compat.httpx: fails loudly when httpx no longer imports its command line the way it did."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
asked = []
class Recorder:  # sees every import the path finders are asked for
    def find_spec(self, name, path=None, target=None):
        asked.append(name)
sys.meta_path.insert(0, Recorder())
if sys.argv[1] == "skip":
    from ggd.compat.httpx import skip_cli
    skip_cli()
import httpx
print(json.dumps({
    "cli_module": "httpx._main" in asked,
    "click": "click" in sys.modules,
    "client": callable(httpx.AsyncClient),
}))
"""


def _probe(mode: str) -> dict[str, bool]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    facts: dict[str, bool] = json.loads(out.stdout)
    return facts


def test_httpx_still_imports_its_command_line_module_by_that_name() -> None:
    # If this fails, httpx renamed or dropped httpx._main: skip_cli() is a no-op now; check
    # what `import httpx` imports and drop or update the adapter (docs/internals.md).
    facts = _probe("plain")
    assert facts["cli_module"], "httpx no longer imports httpx._main: revisit ggd/compat/httpx.py"
    assert facts["click"]  # what the adapter keeps out (it comes with mcp's uvicorn)


def test_skip_cli_keeps_click_out_and_httpx_whole() -> None:
    facts = _probe("skip")
    assert not facts["cli_module"] and not facts["click"]
    assert facts["client"]
