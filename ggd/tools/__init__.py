"""Builtin tools (read, list, grep, bash, edit, write), the bash command classifier and the sandbox."""

from __future__ import annotations

from ggd.tools.base import ApprovalInfo, Risk, Tool, ToolContext, ToolError, ToolResult
from ggd.tools.builtin import builtin_tools
from ggd.tools.client import TOOL_CALL_ID
from ggd.tools.shell.classifier import Classification, classify_command

__all__ = [
    "TOOL_CALL_ID",
    "ApprovalInfo",
    "Classification",
    "Risk",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "builtin_tools",
    "classify_command",
]
