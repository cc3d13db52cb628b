"""The computer provider: which tools exist here, decided from the platform, display and binaries."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping

from ggd.app import (
    Contribution,
    ScopeContext,
    SessionContext,
    ToolProvider,
)
from ggd.tools import Tool

from .tools import (
    ClipboardRead,
    ClipboardWrite,
    ComputerInfo,
    Notify,
    Open,
    ProcessKill,
    ProcessList,
)


def clipboard_commands(env: Mapping[str, str]) -> tuple[list[str], list[str]] | None:
    """(read argv, write argv) for this session's display, or None without one."""
    if env.get("WAYLAND_DISPLAY") and shutil.which("wl-paste") and shutil.which("wl-copy"):
        return ["wl-paste", "--no-newline"], ["wl-copy"]
    if env.get("DISPLAY") and shutil.which("xclip"):
        return (
            ["xclip", "-selection", "clipboard", "-o"],
            ["xclip", "-selection", "clipboard", "-i"],
        )
    return None


class ComputerProvider(ToolProvider):
    """Linux only; display-bound tools only with a display."""

    name = "computer"
    capabilities = ("computer",)

    def __init__(self, env: Mapping[str, str], platform: str = sys.platform) -> None:
        self.env = dict(env)
        self.platform = platform

    def available(self, scope: ScopeContext) -> str | None:
        """Linux only."""
        return None if self.platform.startswith("linux") else "computer tools need Linux"

    def tools(self) -> list[Tool]:
        """The tools that can work on this machine right now."""
        tools: list[Tool] = [ComputerInfo(), ProcessList(), ProcessKill()]
        clip = clipboard_commands(self.env)
        if clip is not None:
            tools += [ClipboardRead(clip[0]), ClipboardWrite(clip[1])]
        display = self.env.get("DISPLAY") or self.env.get("WAYLAND_DISPLAY")
        notify = shutil.which("notify-send")
        if display and notify:
            tools.append(Notify(notify))
        opener = shutil.which("xdg-open")
        if display and opener:
            tools.append(Open(opener))
        return tools

    async def build(self, session: SessionContext) -> Contribution:
        """The tools for one turn."""
        return Contribution(tools=self.tools())
