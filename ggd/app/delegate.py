"""The client delegate of a run, as the rpc layer sees it (ggd.tools defines the contract)."""

from __future__ import annotations

from ggd.tools.client import ClientDelegate, ClientToolError, CommandOutcome

__all__ = ["ClientDelegate", "ClientToolError", "CommandOutcome"]
