"""Capability subcommands of `gg` (memory, skills, mcp, job, ...): one module per capability.

The CLI is a separate stdlib-only client, so a capability's command line lives here rather than
in its ggd package. Each module exports `NAMES` (the subcommand words it owns), `register(sub)`
(adds its argparse subparsers) and `run(args) -> int`; adding one is a module plus one line in
`MODULES`. Commands talk to the daemon only through the protocol (`connect(...)`).
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

# One line per capability command module.
MODULES: tuple[str, ...] = (
    "memory",
    "skills",
    "media",
    "browser",
    "artifacts",
    "mcp",
    "job",
    "kb",
    "connectors",
    "checkpoints",
    "hooks",
)


def _modules() -> list[ModuleType]:
    return [importlib.import_module(f"ggcli.commands.{m}") for m in MODULES]


def names() -> set[str]:
    """Every subcommand word the capability modules own."""
    out: set[str] = set()
    for m in MODULES:
        # NAMES is read without importing the module's heavier parts: modules keep it at the top.
        out |= set(importlib.import_module(f"ggcli.commands.{m}").NAMES)
    return out


def register(sub: Any) -> None:
    """Add every capability module's subparsers."""
    for mod in _modules():
        mod.register(sub)


def run(args: argparse.Namespace) -> int | None:
    """Run the command if a capability module owns it, else None."""
    for mod in _modules():
        if args.command in mod.NAMES:
            return int(mod.run(args))
    return None


def add_connection_flags(p: argparse.ArgumentParser) -> None:
    """--no-daemon and --workspace, accepted by every command that talks to the daemon."""
    p.add_argument("--no-daemon", action="store_true", help="use a private ggd child")
    from ggcli.argtypes import workspace_dir

    p.add_argument(
        "--workspace", type=workspace_dir, help="workspace folder (default: the current one)"
    )


def connect(args: argparse.Namespace) -> Any:
    """A protocol client for the command's workspace (the running daemon, or a private child)."""
    from ggcli.discovery import connect as _connect

    ws = (getattr(args, "workspace", None) or Path.cwd()).resolve()
    return _connect(ws, bool(getattr(args, "no_daemon", False)))


__all__ = ["MODULES", "add_connection_flags", "connect", "names", "register", "run"]
