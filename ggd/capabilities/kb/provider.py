"""The kb provider: kb_search exists once a knowledge base has been indexed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ggd.app import (
    Capability,
    Contribution,
    DeferredHandlers,
    DeferredRows,
    ScopeContext,
    SessionContext,
    SetupContext,
    ToolProvider,
)

from .config import KbConfig
from .errors import ERRORS

if TYPE_CHECKING:
    from .service import KbService


class KbProvider(ToolProvider):
    """kb_search over GG_HOME/kb."""

    name = "kb"
    capabilities = ("kb.search",)

    def __init__(self, home: Path, config: KbConfig, env: Mapping[str, str]) -> None:
        self.home = home
        self.config = config
        self.env = env

    def available(self, scope: ScopeContext) -> str | None:
        """Absent until some folder is indexed (a tool with nothing to search only misleads)."""
        from .names import list_names

        return None if list_names(self.home) else "no knowledge base indexed yet"

    async def build(self, session: SessionContext) -> Contribution:
        """The kb_search tool naming the bases there are."""
        from .service import KbService
        from .tools import KbSearch

        svc: KbService = KbService(self.home, self.config, self.env)
        return Contribution(tools=[KbSearch(svc, svc.names())])


def _providers(setup: SetupContext) -> list[ToolProvider]:
    config = setup.section(KbConfig)
    return [KbProvider(setup.home, config, setup.env)]


CAPABILITY = Capability(
    name="kb",
    summary="Local knowledge bases: hybrid BM25 + vector search over your documents and code.",
    config_key="kb",
    config_model=KbConfig,
    providers=_providers,
    methods=DeferredRows("ggd.capabilities.kb", "kb"),
    handlers=DeferredHandlers("ggd.capabilities.kb"),
    errors=ERRORS,
)
