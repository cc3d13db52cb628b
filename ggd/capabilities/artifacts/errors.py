"""The artifacts capability's own protocol errors (listed in its declaration)."""

from __future__ import annotations

from ggd.protocol.errors import GgError


class ArtifactNotFoundError(GgError):
    """No artifact with that id."""

    code, symbol = -32011, "artifact_not_found"


class VersionChangedError(GgError):
    """The thing changed while the request was in flight; read it again and retry."""

    code, symbol, retryable = -32012, "version_changed", True


ERRORS = (ArtifactNotFoundError, VersionChangedError)
