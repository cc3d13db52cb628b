"""The kb capability's own protocol errors (listed in its declaration)."""

from __future__ import annotations

from ggd.protocol.errors import GgError


class KbNotFoundError(GgError):
    """No knowledge base with that name; gg/kb.list names those there are."""

    code, symbol = -32016, "kb_not_found"


ERRORS = (KbNotFoundError,)
