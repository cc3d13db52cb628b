"""What every request declares stays small: builtins and memory eager, capability tools deferred."""

from __future__ import annotations

import json
from pathlib import Path

from ggd.agent import ToolSearchTool, ToolSet
from ggd.capabilities.artifacts.tools import ArtifactCreateTool, ArtifactEditTool
from ggd.capabilities.browser.tools import BrowserNavigate, BrowserRead, BrowserScreenshot
from ggd.capabilities.computer import tools as computer
from ggd.capabilities.kb.tools import KbSearch
from ggd.capabilities.mcp.tools import McpTool
from ggd.capabilities.media.tools import ImageGenerate, Stt, Tts
from ggd.capabilities.personal.store import MemoryStore
from ggd.capabilities.personal.tools import MemoryAddTool, MemorySearchTool
from ggd.tools import Tool, builtin_tools

# Declarations of the eager tools (builtins, memory, tool_search) as sent: 3.6 KB today.
EAGER_BUDGET_BYTES = 4096


def test_capability_tools_are_deferred() -> None:
    classes: list[type[Tool]] = [
        ArtifactCreateTool,
        ArtifactEditTool,
        BrowserNavigate,
        BrowserRead,
        BrowserScreenshot,
        KbSearch,
        McpTool,
        ImageGenerate,
        Tts,
        Stt,
        computer.ComputerInfo,
        computer.ProcessList,
        computer.ProcessKill,
        computer.ClipboardRead,
        computer.ClipboardWrite,
        computer.Notify,
        computer.Open,
    ]
    assert [c.__name__ for c in classes if not c.deferred] == []


def test_eager_declarations_fit_their_budget(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, 90)
    tools = ToolSet([*builtin_tools(), MemoryAddTool(store), MemorySearchTool(store)])
    assert [t.name for t in tools.declared()] == [
        "read",
        "list",
        "grep",
        "bash",
        "edit",
        "write",
        "memory_add",
        "memory_search",
    ]
    # With any capability configured, tool_search joins them.
    declared = [*tools.declared(), ToolSearchTool(tools)]
    sent = json.dumps([t.spec() for t in declared], separators=(",", ":")).encode()
    assert len(sent) <= EAGER_BUDGET_BYTES, len(sent)
