"""`ggd`: the composition root. Parses flags, builds the runtime and owns the listeners."""

from __future__ import annotations

import asyncio
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
    try:
        from ggd.compat.httpx import skip_cli

        skip_cli()
        from ggd.providers import tls

        from .home import resolve_home

        # The CA bundle is parsed on another core while the imports below run, unless the
        # model is plain http (a local server) and no client will speak TLS.
        tls.warm_early(resolve_home() / "config.json")
        # Besides the daemon itself, what the first connection and the first model request
        # import anyway, here with the collector off: the gg/* handlers and editor commands
        # (bind) and httpx's transport (the first client).
        import httpcore  # noqa: F401

        from ggd.rpc import handlers  # noqa: F401
        from ggd.rpc.editor import commands  # noqa: F401
        from ggd.transport.endpoint import prepare

        from . import app  # noqa: F401 - imported here, used by main()

        prepare()
    finally:
        gc.freeze()
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("install-service", "uninstall-service"):
        from .service import main as service_main

        return service_main(args)
    parser = build_parser()
    ns = parser.parse_args(args)
    if ns.allow_yolo and not ns.mcp:
        parser.error("--allow-yolo only applies to --mcp")
    if ns.mcp:
        from ggd.adapters.mcp_server import main as mcp_main

        return mcp_main(ns.workspace, ns.allow_yolo)
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
