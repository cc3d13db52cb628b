"""The core capability: the six builtin tools and the bubblewrap sandbox, as providers like any other."""

from __future__ import annotations

import logging

from ggd.tools import builtin_tools
from ggd.tools.sandbox import sandbox_prefix

from .extension import (
    Capability,
    Contribution,
    ScopeContext,
    SessionContext,
    SetupContext,
    ToolProvider,
)

log = logging.getLogger("ggd.app")

# Capability strings of the core itself (not tied to a provider).
CORE_CAPABILITIES = ("sessions", "session.events", "runs", "approvals", "steering")


class BuiltinTools(ToolProvider):
    """read, list, grep, bash, edit and write."""

    name = "builtin"
    capabilities = ("tools.builtin",)

    async def build(self, session: SessionContext) -> Contribution:
        """Fresh tool instances for the turn."""
        return Contribution(tools=builtin_tools())


class Sandbox(ToolProvider):
    """bash under bubblewrap: advertised only when asked for and bwrap really starts here.

    Asked for but unusable is a degradation, and bash then refuses to run rather than run
    unconfined (the bash tool checks the sandbox on every call).
    """

    name = "sandbox"
    capabilities = ("sandbox",)

    def __init__(self, enabled: bool, probe_dir: str) -> None:
        self.enabled = enabled
        self.probe_dir = probe_dir
        self.reason: str | None = None if enabled else "not enabled (--sandbox)"

    async def start(self) -> None:
        """Probe bubblewrap once; raising reports the sandbox degraded daemon-wide."""
        if not self.enabled:
            return
        from pathlib import Path

        prefix, why = await sandbox_prefix(Path(self.probe_dir))
        if prefix is None:
            self.reason = why
            raise RuntimeError(f"{why}; bash commands are refused until it works")

    def available(self, scope: ScopeContext) -> str | None:
        """Present only when enabled and the probe passed."""
        return self.reason


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [BuiltinTools(), Sandbox(setup.sandbox, str(setup.home))]


CAPABILITY = Capability(
    name="core",
    summary="The builtin tools (read, list, grep, bash, edit, write) and the bubblewrap sandbox.",
    providers=_providers,
)

__all__ = ["CAPABILITY", "CORE_CAPABILITIES", "BuiltinTools", "Sandbox"]
