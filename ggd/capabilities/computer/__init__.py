"""Computer tools (Linux): system facts, processes, the clipboard, notifications and opening things.

Each tool is advertised only where it can work (Linux; a display and wl-copy/xclip for the
clipboard; notify-send; xdg-open with a display). Killing a process, the clipboard and opening a
target ask for approval; every helper process is bounded and killed with its group on timeout.
"""

from __future__ import annotations

from ggd.app import Capability, SetupContext, ToolProvider

from .provider import ComputerProvider


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [ComputerProvider(setup.env)]


CAPABILITY = Capability(
    name="computer",
    summary="System facts, processes, clipboard, notifications and opening files (Linux).",
    providers=_providers,
)

__all__ = ["CAPABILITY", "ComputerProvider"]
