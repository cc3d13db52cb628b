"""The Google connector: an OAuth 2.0 connection (PKCE, run by `gg connect google`) stored under
GG_HOME/connectors/, and Gmail/Calendar tools registered only for the scopes Google granted."""

from __future__ import annotations

from ggd.app import Capability, DeferredHandlers, DeferredRows, SetupContext, ToolProvider

from .config import GoogleConfig
from .provider import GoogleProvider


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [GoogleProvider(setup.home, setup.section(GoogleConfig), setup.env)]


CAPABILITY = Capability(
    name="google",
    summary="Gmail and Google Calendar through an OAuth connection (gg connect google).",
    config_key="google",
    config_model=GoogleConfig,
    providers=_providers,
    methods=DeferredRows(__name__, "connector"),
    handlers=DeferredHandlers(__name__),
)

__all__ = ["CAPABILITY", "GoogleConfig", "GoogleProvider"]
