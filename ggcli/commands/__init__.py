"""Subcommands of `gg` beyond the core's own: the daemon's (hooks) and each capability's.

Modules here (`hooks.py`: the core's gg/hooks.* methods) are the CLI's own. A capability's
command line is the `cli.py` in its own folder (`ggd/capabilities/<name>/cli.py`,
or an out-of-tree package named by GG_CAPABILITIES_EXTRA, as the daemon's catalog reads it), so
adding a capability stays one folder plus one catalog line. The CLI is a separate stdlib-only
client and never imports ggd: it finds ggd's folder without importing it (`find_spec` of a
top-level name imports nothing) and loads each `cli.py` from its file, as
`ggcli.commands.<capability>`. A `cli.py` is stdlib + ggcli only (tests/unit/test_architecture.py
checks) and exports `NAMES` (the subcommand words it owns), `register(sub)` (adds its argparse
subparsers) and `run(args) -> int`. Commands talk to the daemon only through the protocol
(`connect(...)`).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

# The environment variable of the daemon's out-of-tree catalog lines (ggd/daemon/catalog.py).
EXTRA_ENV = "GG_CAPABILITIES_EXTRA"

_LOADED: list[ModuleType] | None = None


def package_dir(dotted: str) -> Path | None:
    """The folder of package `dotted`, found without importing it or any of its parents."""
    top, *rest = dotted.split(".")
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: found, not imported
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location, *rest)
        if folder.is_dir():
            return folder
    return None


def own_modules() -> list[str]:
    """The command modules beside this file (no list to keep: a new file is a new command)."""
    here = Path(__file__).parent
    return sorted(p.stem for p in here.glob("*.py") if not p.name.startswith("_"))


def cli_files(env: Mapping[str, str]) -> list[tuple[str, Path]]:
    """(capability, cli.py) of ggd's capabilities, then of GG_CAPABILITIES_EXTRA's packages."""
    found: list[tuple[str, Path]] = []
    ggd = package_dir("ggd")
    if ggd is not None and (ggd / "capabilities").is_dir():
        for folder in sorted((ggd / "capabilities").iterdir()):
            if (folder / "cli.py").is_file():
                found.append((folder.name, folder / "cli.py"))
    for item in filter(None, (s.strip() for s in env.get(EXTRA_ENV, "").split(","))):
        extra = package_dir(item.partition(":")[0])
        if extra is not None and (extra / "cli.py").is_file():
            found.append((extra.name, extra / "cli.py"))
    return found


def _load(name: str, path: Path) -> ModuleType:
    module_name = f"ggcli.commands.{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def modules() -> list[ModuleType]:
    """Every capability's command module, loaded once per process; a word claimed twice is a
    bug of the capabilities installed, named here rather than as argparse's conflict."""
    global _LOADED
    if _LOADED is None:
        own = own_modules()
        loaded = [importlib.import_module(f"{__name__}.{name}") for name in own]
        for name, path in cli_files(os.environ):
            if name in own:
                raise ValueError(f"capability {name!r} has the name of gg's own `{name}` module")
            loaded.append(_load(name, path))
        owners: dict[str, str] = {}
        for mod in loaded:
            for word in mod.NAMES:
                if word in owners:
                    raise ValueError(f"`gg {word}` is claimed by {owners[word]} and {mod.__name__}")
                owners[word] = mod.__name__
        _LOADED = loaded
    return _LOADED


def names() -> set[str]:
    """Every subcommand word the capability modules own."""
    return {word for mod in modules() for word in mod.NAMES}


def register(sub: Any) -> None:
    """Add every capability module's subparsers."""
    for mod in modules():
        mod.register(sub)


def run(args: argparse.Namespace) -> int | None:
    """Run the command if a capability module owns it, else None."""
    for mod in modules():
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


__all__ = [
    "add_connection_flags",
    "cli_files",
    "connect",
    "modules",
    "names",
    "own_modules",
    "package_dir",
    "register",
    "run",
]
