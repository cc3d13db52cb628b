"""KbService: the knowledge bases of one GG_HOME as async calls (all SQLite and embedding work
runs in worker threads so the daemon keeps serving)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from ggd.protocol import errors as E

from . import search as S
from .config import KbConfig
from .embed import Embedder, EmbedError, choose
from .errors import KbNotFoundError
from .index import IndexSummary, Progress, index_folder, remove_base
from .names import list_names
from .store import KbError, KbInfo, KbNotFound, ModelMismatch, Store, default_name


def to_gg(exc: Exception) -> E.GgError:
    """The protocol error for a knowledge-base failure."""
    if isinstance(exc, KbNotFound):
        return KbNotFoundError(str(exc))
    if isinstance(exc, ModelMismatch | EmbedError):
        return E.CapabilityUnavailableError(str(exc))
    return E.InvalidParamsError(f"invalid params: {exc}")


class KbService:
    """List, index, search and remove the bases under GG_HOME/kb."""

    def __init__(self, home: Path, config: KbConfig, env: Mapping[str, str]) -> None:
        self.home = home
        self.embedder: Embedder | None
        self.embedder, self.source = choose(home, config, env)

    @property
    def model(self) -> str:
        """The configured source's model ('' for none)."""
        return self.embedder.model if self.embedder else ""

    def names(self) -> list[str]:
        """Names of the bases."""
        return list_names(self.home)

    async def list_bases(self) -> list[KbInfo]:
        """Every base's counts."""
        return await asyncio.to_thread(self._list)

    def _list(self) -> list[KbInfo]:
        out = []
        for n in list_names(self.home):
            st = Store(self.home, n)
            try:
                out.append(st.info())
            finally:
                st.close()
        return out

    def resolve_name(self, name: str | None) -> str:
        """The base to search: the given one, else the only one."""
        if name:
            return name
        names = list_names(self.home)
        if len(names) == 1:
            return names[0]
        if not names:
            raise KbNotFound("no knowledge base yet: index a folder with `gg kb index DIR`")
        raise KbError(f"several knowledge bases exist ({', '.join(names)}): name one")

    async def index(
        self, folder: Path, name: str | None, progress: Progress | None = None
    ) -> IndexSummary:
        """Index folder into base name (default: the folder's name)."""
        return await asyncio.to_thread(
            index_folder, self.home, name or default_name(folder), folder, self.embedder, progress
        )

    async def search(
        self, query: str, name: str | None, top_k: int = 5, mode: S.Mode = "hybrid"
    ) -> tuple[str, list[S.Hit], S.Mode]:
        """(base name, hits, mode used)."""
        return await asyncio.to_thread(self._search, query, name, top_k, mode)

    def _search(
        self, query: str, name: str | None, top_k: int, mode: S.Mode
    ) -> tuple[str, list[S.Hit], S.Mode]:
        base = self.resolve_name(name)
        st = Store(self.home, base)
        try:
            hits, used = S.search(st, query, top_k, mode, self.embedder)
        finally:
            st.close()
        return base, hits, used

    async def remove(self, name: str) -> None:
        """Delete a base."""
        await asyncio.to_thread(remove_base, self.home, name)
        S.forget(str(self.home / "kb" / name / "index.sqlite"))
