"""The builtin tool set."""

from __future__ import annotations

from ggd.tools.base import Tool
from ggd.tools.bash_tool import BashTool
from ggd.tools.edit_tools import EditTool, WriteTool
from ggd.tools.fs_tools import ListTool, ReadTool
from ggd.tools.grep_tool import GrepTool


def builtin_tools() -> list[Tool]:
    """Fresh instances of read, list, grep, bash, edit and write (in that order)."""
    return [ReadTool(), ListTool(), GrepTool(), BashTool(), EditTool(), WriteTool()]
