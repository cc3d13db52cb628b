"""The Google provider: tools exist only while connected, and only for the granted scopes."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ggd.app import (
    Contribution,
    ScopeContext,
    SessionContext,
    ToolProvider,
)
from ggd.tools import Tool

from . import store
from .api import Calendar, Gmail
from .auth import GoogleAuth
from .config import GoogleConfig, resolve

# Which scope enables which tools (calendar.events covers reading the agenda too).
SCOPE_TOOLS: dict[str, tuple[str, ...]] = {
    "gmail.readonly": ("gmail_search", "gmail_read"),
    "gmail.send": ("gmail_send",),
    "calendar.readonly": ("calendar_agenda",),
    "calendar.events": ("calendar_agenda", "calendar_create"),
}


def tool_names(scopes: list[str]) -> list[str]:
    """The tools the granted scopes enable, each once."""
    out: list[str] = []
    for s in scopes:
        out += [t for t in SCOPE_TOOLS.get(s, ()) if t not in out]
    return out


class GoogleProvider(ToolProvider):
    """Gmail and Calendar tools over the stored OAuth connection."""

    name = "google"

    def __init__(self, home: Path, config: GoogleConfig, env: Mapping[str, str]) -> None:
        self.home = home
        self.auth = GoogleAuth(home, resolve(config, env))
        self._seen: tuple[int, int] | None = None
        self._scopes: list[str] = []

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(store.path(self.home))
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _granted(self) -> list[str]:
        # Re-read only when the file changed: available() runs for every connection's listing.
        seen = self._stat()
        if seen != self._seen:
            self._seen = seen
            try:
                tokens = store.load(self.home) if seen else None
            except store.StoreError:
                tokens = None
            self._scopes = tokens.scopes if tokens else []
        return self._scopes

    @property  # computed from the store, not a class constant
    def capabilities(self) -> tuple[str, ...]:  # type: ignore[override]
        """`google.<scope>` for each granted scope."""
        return tuple(f"google.{s}" for s in self._granted())

    def available(self, scope: ScopeContext) -> str | None:
        """Absent (not degraded) until `gg connect google` has stored a connection."""
        if self._stat() is None:
            return "Google is not connected (gg connect google)"
        return None

    async def build(self, session: SessionContext) -> Contribution:
        """The tools of the granted scopes; an unreadable token file degrades the provider."""
        tokens = store.load(self.home)
        if tokens is None:
            return Contribution()
        gmail, cal = Gmail(self.auth), Calendar(self.auth)
        from .tools import CalendarAgenda, CalendarCreate, GmailRead, GmailSearch, GmailSend

        made: dict[str, Tool] = {
            "gmail_search": GmailSearch(gmail),
            "gmail_read": GmailRead(gmail),
            "gmail_send": GmailSend(gmail),
            "calendar_agenda": CalendarAgenda(cal),
            "calendar_create": CalendarCreate(cal),
        }
        return Contribution(tools=[made[n] for n in tool_names(tokens.scopes)])
