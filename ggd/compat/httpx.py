"""httpx: keep its command line out of the daemon.

`import httpx` tries `httpx._main`, httpx's own command line, which imports click (and pygments
and rich when installed; click comes with mcp's uvicorn, so always for gg): ~15 ms of every
daemon start for a program ggd never runs. httpx imports it inside `try: ... except ImportError`
and offers no switch; a None entry in `sys.modules` is the import system's documented way to
make an import raise ImportError, so httpx falls back to its stub `main`.

Private name relied on: the module name `httpx._main`. If httpx renames or drops it this is a
no-op (httpx then just imports what it imports); tests/unit/compat/test_httpx.py fails so the
adapter is revisited rather than left to do nothing.
"""

from __future__ import annotations

import sys

CLI_MODULE = "httpx._main"


def skip_cli() -> None:
    """Make a later `import httpx` skip its command line; call before httpx is imported."""
    sys.modules.setdefault(CLI_MODULE, None)  # type: ignore[arg-type]


__all__ = ["CLI_MODULE", "skip_cli"]
