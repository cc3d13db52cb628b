"""`ggd`: the composition root. Parses flags, builds the runtime and owns the listeners."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys

from .flags import build_parser, parse_hostport

log = logging.getLogger("ggd.daemon")


def _import_app() -> None:
    """Import the daemon (~0.4 s of Python) as cheaply as it goes; see docs/internals.md.

    The collector is off meanwhile: imports make ~300k long-lived objects and few cycles, and
    the ~200 collections they would trigger cost ~45 ms. What they made is then frozen (never
    scanned again), so later full collections in the serving daemon skip it too.
    """
    gc.disable()
    # httpx imports its own command line (click, pygments: ~10 ms, click comes with mcp's
    # uvicorn) when those are installed; ggd never runs it. A None entry makes httpx skip it.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    folder = None
    try:
        from . import lspimage
        from .codecache import cache_folder, startup_code_cache
        from .home import resolve_home

        home = resolve_home()
        folder = cache_folder(home)
        # lsprotocol's ~550 attrs classes come finished from their image when it is there
        # (lspimage.py); else attrs makes them as usual below.
        lspimage.load(folder)
        # attrs, cattrs and dataclasses take their generated code from here.
        with startup_code_cache(home):
            from ggd.providers import tls

            # The CA bundle is parsed on another core while the imports below run, unless the
            # model is plain http (a local server) and no client will speak TLS.
            tls.warm_early(home / "config.json")
            _no_pydantic_plugins()
            # Besides the daemon itself, what the first connection and the first model request
            # import anyway, here with the collector off and their generated code cached: the
            # gg/* handlers and editor commands (bind) and httpx's transport (the first client).
            import httpcore  # noqa: F401

            # httpcore's first connection under asyncio imports anyio's asyncio backend
            # (dataclasses and namedtuples): here, with their code cached and the collector off.
            with contextlib.suppress(ImportError):
                import anyio._backends._asyncio  # noqa: F401

            from ggd.rpc import handlers  # noqa: F401
            from ggd.rpc.editor import commands  # noqa: F401
            from ggd.transport.endpoint import prepare

            from . import app  # noqa: F401 - imported here, used by main()

            prepare()
    finally:
        gc.freeze()
        gc.enable()
    # A missing or old image is rebuilt by a detached child for the next start.
    lspimage.build_later(folder)


def _no_pydantic_plugins() -> None:
    """Tell pydantic the daemon loads no plugins, so its first model skips the entry-point scan.

    pydantic looks for plugins (an observability hook for validation) by reading the entry
    points of every installed distribution, ~80 in a dev venv, at the first schema it builds,
    inside the start-up window. ggd's models are its own wire format, not something to
    instrument, so the scan finds nothing ggd wants; its result is preset to "none".
    """
    try:
        from pydantic.plugin import _loader
    except ImportError:  # pydantic moved it: the scan runs as before, nothing breaks
        return
    if getattr(_loader, "_plugins", False) is None:
        _loader._plugins = {}


def main(argv: list[str] | None = None) -> int:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("install-service", "uninstall-service"):
        from .service import main as service_main

        return service_main(args)
    ns = build_parser().parse_args(args)
    if ns.mcp:
        from ggd.adapters.mcp_server import main as mcp_main

        return mcp_main(ns.workspace)
    if ns.acp:
        from ggd.adapters.acp import main as acp_main

        return acp_main()
    _import_app()
    from .app import DaemonApp, StartupError
    from .takeover import AlreadyServing

    try:
        return asyncio.run(DaemonApp(ns).run())
    except AlreadyServing as exc:  # `ggd --ws` while one serves the UI: its URL, exit 0
        print(str(exc), file=sys.stderr)
        return 0
    except StartupError as exc:
        print(f"ggd: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


__all__ = ["build_parser", "main", "parse_hostport"]
