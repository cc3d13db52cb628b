"""ggd's command line: the flags and their small parsers (no daemon import)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ggd import __version__


def build_parser() -> argparse.ArgumentParser:
    """The ggd command line."""
    ap = argparse.ArgumentParser(
        prog="ggd",
        description="The gg daemon: one agent core, many clients.",
        epilog="ggd install-service [--ws HOST:PORT] | ggd uninstall-service: a systemd user "
        "unit that runs ggd (and fires scheduled jobs) after login.",
    )
    ap.add_argument("--version", action="version", version=f"ggd {__version__}")
    _listeners(ap)
    _defaults(ap)
    _adapters(ap)
    return ap


def _listeners(ap: argparse.ArgumentParser) -> None:
    """Where clients reach this daemon: stdio, the Unix socket, WebSocket and its trust."""
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


def _defaults(ap: argparse.ArgumentParser) -> None:
    """What runs get by default, the daemon's limits, its channels and its log."""
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


def _adapters(ap: argparse.ArgumentParser) -> None:
    """gg served to other agents and editors (clients of gg, not listeners of the daemon)."""
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


__all__ = ["build_parser", "parse_hostport", "parse_origin"]
