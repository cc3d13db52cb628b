"""GG_HOME/connectors/google.json: the OAuth tokens, owner-only, changed only under a file lock.

The file is read-modify-written under `connectors/google.lock` (portalocker) so two daemons, or
a daemon and a `gg connect google`, never refresh at once and lose a rotated refresh token.
Token values never reach a log or a repr.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggd.app.files import write_private

if TYPE_CHECKING:
    import portalocker

# Refresh this long before the access token expires, so a call never starts with a dying token.
EARLY_SECONDS = 60


class StoreError(Exception):
    """The token file is unreadable; the message says what to do, never a path or a token."""


@dataclass
class Tokens:
    """One Google connection."""

    client_id: str
    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    expires_at: float
    scopes: list[str]
    client_secret: str | None = field(default=None, repr=False)
    saved_at: float = 0.0

    def expiring(self, now: float | None = None) -> bool:
        """True when the access token is gone or about to go."""
        return (now if now is not None else time.time()) >= self.expires_at - EARLY_SECONDS

    def wire(self) -> dict[str, Any]:
        """The file's JSON object (camelCase like every gg file)."""
        raw = asdict(self)
        return {
            "version": 1,
            "clientId": raw["client_id"],
            "clientSecret": raw["client_secret"],
            "accessToken": raw["access_token"],
            "refreshToken": raw["refresh_token"],
            "expiresAt": raw["expires_at"],
            "scopes": raw["scopes"],
            "savedAt": raw["saved_at"],
        }


def folder(home: Path) -> Path:
    """GG_HOME/connectors, created owner-only."""
    d = home / "connectors"
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(d, 0o700)
    return d


def path(home: Path) -> Path:
    """The token file."""
    return home / "connectors" / "google.json"


def lock(home: Path, timeout: float = 30) -> portalocker.Lock:
    """The file lock every writer holds (acquire it off the event loop)."""
    import portalocker  # ~20 ms of imports: only when the tokens are written, not at start

    return portalocker.Lock(str(folder(home) / "google.lock"), mode="a", timeout=timeout)


def load(home: Path) -> Tokens | None:
    """The stored connection, None when not connected."""
    try:
        raw = json.loads(path(home).read_text(encoding="utf-8"))
        return Tokens(
            client_id=str(raw["clientId"]),
            client_secret=raw.get("clientSecret") or None,
            access_token=str(raw["accessToken"]),
            refresh_token=str(raw["refreshToken"]),
            expires_at=float(raw["expiresAt"]),
            scopes=[str(s) for s in raw.get("scopes") or []],
            saved_at=float(raw.get("savedAt") or 0),
        )
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise StoreError(
            "the stored Google connection is unreadable; run `gg connect remove google` "
            "and `gg connect google` again"
        ) from None


def write(home: Path, tokens: Tokens) -> None:
    """Replace the file (call with the lock held)."""
    folder(home)
    tokens.saved_at = time.time()
    write_private(path(home), json.dumps(tokens.wire(), indent=2).encode())


def save(home: Path, tokens: Tokens) -> None:
    """Store a new connection under the lock."""
    with lock(home):
        write(home, tokens)


def remove(home: Path) -> bool:
    """Forget the connection; False when there was none."""
    with lock(home):
        try:
            path(home).unlink()
        except FileNotFoundError:
            return False
    return True
