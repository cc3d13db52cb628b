"""The Google connector: an OAuth 2.0 connection (PKCE, run by `gg connect google`) stored under
GG_HOME/connectors/, and Gmail/Calendar tools registered only for the scopes Google granted."""

from __future__ import annotations

from .config import GoogleConfig
from .provider import GoogleProvider, _capability

CAPABILITY = _capability()

__all__ = ["CAPABILITY", "GoogleConfig", "GoogleProvider"]
