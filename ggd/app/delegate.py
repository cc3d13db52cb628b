"""The client delegate of a run, as the rpc layer sees it (ggd.tools defines the contract)."""

from __future__ import annotations

from ggd.tools.client import TOOL_CALL_ID, ClientDelegate, ClientToolError, CommandOutcome

__all__ = ["TOOL_CALL_ID", "ClientDelegate", "ClientToolError", "CommandOutcome"]
