"""The kb provider: kb_search exists once a knowledge base has been indexed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ggd.app import (
    Contribution,
    ScopeContext,
    SessionContext,
    ToolProvider,
)

from .config import KbConfig

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
