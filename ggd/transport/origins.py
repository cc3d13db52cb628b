"""Browser origins for the WebSocket's Origin check: one normal form for headers and settings.

A browser sends `Origin: scheme://host[:port]` (host in lower case, the scheme's default port
left out) on every WebSocket handshake, or `null` from an opaque context: a sandboxed iframe,
a file: or data: page, some redirects. `null` is therefore shared by every site on the web and
never names the daemon's page; it is refused like any foreign origin. Stdlib only: the daemon's
command line parses `--allow-origin` with it before anything heavy is imported.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def normalize_origin(value: str) -> str | None:
    """`scheme://host[:port]` in the form browsers send, or None for anything that is not one."""
    text = value.strip()
    if text.endswith("/"):
        text = text[:-1]
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # an unclosed IPv6 bracket, a port out of range
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not _SCHEME.fullmatch(scheme) or not host or "://" not in text:
        return None
    if parts.path or parts.query or parts.fragment or parts.username or parts.password:
        return None
    if not re.fullmatch(r"[a-z0-9._~%:-]+", host):
        return None
    return origin_of(scheme, host, port)


def origin_of(scheme: str, host: str, port: int | None) -> str:
    """The serialized origin of a scheme, host and port (IPv6 hosts in brackets)."""
    host = host.strip("[]").lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or _DEFAULT_PORTS.get(scheme) == port:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


__all__ = ["normalize_origin", "origin_of"]
