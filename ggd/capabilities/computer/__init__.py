"""Computer tools (Linux): system facts, processes, the clipboard, notifications and opening things.

Each tool is advertised only where it can work (Linux; a display and wl-copy/xclip for the
clipboard; notify-send; xdg-open with a display). Killing a process, the clipboard and opening a
target ask for approval; every helper process is bounded and killed with its group on timeout.
"""

from __future__ import annotations

from .provider import CAPABILITY, ComputerProvider

__all__ = ["CAPABILITY", "ComputerProvider"]
