"""Artifacts and the library: versioned deliverables the agent writes, and the user's own files.

One package owns both because they share a lifecycle: publishing moves an artifact's bytes into
the library and must undo that copy when an edit raced it, which needs both stores in one place
(capability packages never import each other). Two providers advertise `artifacts` and
`library`; methods gg/artifact.* and gg/library.*; tools artifact_create and artifact_edit.
"""

from __future__ import annotations

from ggd.app import (
    Capability,
    Contribution,
    DeferredHandlers,
    DeferredRows,
    PromptSection,
    SessionContext,
    SetupContext,
    ToolProvider,
)

from .errors import ERRORS
from .tools import artifact_tools

PROMPT = (
    "Write a deliverable the user will read or keep (report, plan, summary, page) as an "
    "artifact, not a workspace file: artifact_create (markdown or html), then artifact_edit for "
    "a new version (load them with tool_search when they are not declared). Name the artifact "
    "in your answer."
)


class ArtifactTools(ToolProvider):
    """artifact_create and artifact_edit, with live session events."""

    name = "artifacts"
    capabilities = ("artifacts",)

    def __init__(self, setup: SetupContext) -> None:
        self.home = setup.home

    async def build(self, session: SessionContext) -> Contribution:
        """Fresh tools bound to this session's event publisher."""
        return Contribution(
            tools=artifact_tools(self.home, session.publish_event, session.session_id),
            prompt=PromptSection("Artifacts", PROMPT, order=70),
        )


class Library(ToolProvider):
    """The user's file collection (no tools: clients add, list and download through methods)."""

    name = "library"
    capabilities = ("library",)


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [ArtifactTools(setup), Library()]


CAPABILITY = Capability(
    name="artifacts",
    summary="Versioned artifacts the agent writes (markdown, html) and the user's file library.",
    providers=_providers,
    methods=DeferredRows(__name__, "artifact", "library"),
    handlers=DeferredHandlers(__name__),
    errors=ERRORS,
)

__all__ = ["CAPABILITY", "ArtifactTools", "Library"]
