"""The scheduler capability's own protocol errors (listed in its declaration)."""

from __future__ import annotations

from ggd.protocol.errors import GgError


class JobNotFoundError(GgError):
    """No scheduled job with that id or name."""

    code, symbol = -32013, "job_not_found"


ERRORS = (JobNotFoundError,)
