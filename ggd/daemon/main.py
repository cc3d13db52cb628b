"""`ggd`: the composition root. Parses flags, builds the runtime and owns the listeners."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
from pathlib import Path

from ggd import __version__

log = logging.getLogger("ggd.daemon")


def build_parser() -> argparse.ArgumentParser:
    """The ggd command line."""
    ap = argparse.ArgumentParser(
        prog="ggd",
        description="The gg daemon: one agent core, many clients.",
        epilog="ggd install-service [--ws HOST:PORT] | ggd uninstall-service: a systemd user "
        "unit that runs ggd (and fires scheduled jobs) after login.",
    )
    ap.add_argument("--version", action="version", version=f"ggd {__version__}")
    ap.add_argument("--stdio", action="store_true", help="serve one private client on stdin/stdout")
    ap.add_argument(
        "--exit-on-stdin-eof", action="store_true", help="exit when stdin closes (sidecar)"
    )
    ap.add_argument("--private", action="store_true", help="no socket, lock or discovery file")
    ap.add_argument("--socket", type=Path, help="Unix socket path (default GG_HOME/run/ggd.sock)")
    ap.add_argument("--ws", metavar="HOST:PORT", help="serve WebSocket JSON-RPC and the web UI")
    ap.add_argument(
        "--token",
        help="bearer token for --ws (default: $GG_TOKEN, else GG_HOME/ws-token, made once)",
    )
    ap.add_argument(
        "--rotate-token",
        action="store_true",
        help="replace GG_HOME/ws-token: web UI links and tabs opened with the old one stop working",
    )
    ap.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --ws bind")
    ap.add_argument(
        "--allow-origin",
        action="append",
        type=parse_origin,
        metavar="ORIGIN",
        help="let web pages of ORIGIN (scheme://host[:port]) use --ws besides ggd's own; repeatable",
    )
    ap.add_argument(
        "--workspace", type=Path, help="default workspace (default: the current folder)"
    )
    ap.add_argument("--model", help="default model as provider:model")
    ap.add_argument("--sandbox", action="store_true", help="run bash under bubblewrap")
    ap.add_argument("--max-active-runs", type=int, help="admission limit (default 16)")
    ap.add_argument("--max-turns", type=int, help="model requests per run (default 500)")
    ap.add_argument(
        "--run-timeout", type=float, help="seconds before a run is stopped (default 1800)"
    )
    ap.add_argument("--idle-exit", type=float, metavar="MINUTES", help="exit after idle minutes")
    ap.add_argument(
        "--no-scheduler",
        dest="no_channel",
        action="append_const",
        const="scheduler",
        help="do not fire scheduled jobs in this daemon",
    )
    ap.add_argument("--log-file", type=Path, help="write JSON logs here instead of stderr")
    ap.add_argument(
        "--mcp", action="store_true", help="serve gg as an MCP server on stdin/stdout (gg_ask, ...)"
    )
    ap.add_argument(
        "--allow-yolo",
        action="store_true",
        help="with --mcp: let the calling agent pick approvalMode yolo or never (default: refused)",
    )
    ap.add_argument(
        "--acp", action="store_true", help="serve gg as an ACP agent on stdin/stdout (editors)"
    )
    return ap


def parse_origin(value: str) -> str:
    """An --allow-origin value as browsers send it in `Origin`: scheme://host[:port], lower case."""
    from ggd.transport.origins import normalize_origin

    origin = normalize_origin(value)
    if origin is None:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an origin: give scheme://host[:port] (no path; `null` and `*` "
            "are never allowed)"
        )
    return origin


def parse_hostport(value: str) -> tuple[str, int]:
    """Split HOST:PORT (IPv6 in brackets)."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--ws expects HOST:PORT, got {value!r}")
    if int(port) > 65535:
        raise ValueError(f"--ws port must be 0-65535 (0 picks a free one), got {port}")
    return host.strip("[]") or "127.0.0.1", int(port)


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
        from ggd.capabilities.mcp.server import main as mcp_main

        return mcp_main(ns.workspace, ns.allow_yolo)
    if ns.acp:
        from ggd.capabilities.acp import main as acp_main

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
