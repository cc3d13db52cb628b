"""The SSRF guard: a URL may be fetched only if its host and every address it resolves to is public.

Refused: non-http(s) schemes, credentials in the URL, hosts that are not valid DNS names, numeric
hosts in any form other than canonical dotted decimal (decimal `2130706433`, octal `0177.0.0.1`,
hex `0x7f.1`, short `127.1`), and any address that is not globally routable: loopback, private,
link-local (169.254.169.254 included), CGNAT, multicast, unspecified, reserved, documentation, and
IPv6 forms that embed one of those (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo).

`allow` is a test-only exact set of (host, port) pairs; the daemon fills it only from an
environment variable, never from a config file.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

Resolver = Callable[[str], Awaitable[list[str]]]
IP = ipaddress.IPv4Address | ipaddress.IPv6Address

_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_DOTTED = re.compile(r"^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|\d+)$")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


class BlockedURLError(Exception):
    """The URL may not be fetched; the message says why (shown to the model and the user)."""


class PrivateAddressError(BlockedURLError):
    """The host is (or resolves to) an address that is not public; `origin` names it."""

    def __init__(self, message: str, origin: str) -> None:
        super().__init__(message)
        self.origin = origin


_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:(?!\d)", re.IGNORECASE)


def with_scheme(url: str) -> str:
    """`127.0.0.1:8799/x` and `example.com` mean http://; a URL with a scheme is kept as it is."""
    url = url.strip()
    if "://" in url or _SCHEME.match(url):
        return url
    return "http://" + url


def refusal(exc: BlockedURLError) -> str:
    """What a user or model is told when the guard refuses a URL (with the way out, if any)."""
    text = f"refused by the SSRF guard: {exc}"
    if isinstance(exc, PrivateAddressError):
        text += (
            ". gg's browser does not open private or local addresses, on purpose; to browse "
            f'your own server, add "{exc.origin}" to browser.allowPrivateOrigins in config.json '
            "(see docs/browser.md)"
        )
    return text


def origin_of(url: str) -> tuple[str, int]:
    """(host, port) of a config allowance `http://host:port`, or ValueError saying what is wrong."""
    if "://" not in url:
        raise ValueError(f"{url!r} needs its scheme: write {with_scheme(url)!r}")
    try:
        _scheme, host, port = Guard.parse(url)
    except BlockedURLError as exc:
        raise ValueError(f"{url!r}: {exc}") from None
    if urlsplit(url).path not in ("", "/") or "?" in url or "#" in url:
        raise ValueError(f"{url!r} is not an origin (scheme://host:port, no path)")
    return host, port


async def system_resolver(host: str) -> list[str]:
    """Every address the system resolver gives for host."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise BlockedURLError(f"cannot resolve {host!r} ({exc.strerror})") from None
    return sorted({str(info[4][0]) for info in infos})


def embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if int(ip) >> 32 == 0 and int(ip) > 1:  # ::a.b.c.d, the deprecated IPv4-compatible form
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public(ip: IP) -> bool:
    """True only for globally routable unicast addresses (and what they embed)."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id or ip in _NAT64_LOCAL:
            return False
        inner = embedded_v4(ip)
        if inner is not None:
            return is_public(inner)
    return bool(ip.is_global) and not ip.is_multicast and not ip.is_reserved


def literal_ip(host: str) -> IP | None:
    """The address of an IP-literal host, None for a DNS name; obfuscated numbers are refused."""
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise BlockedURLError(f"{host!r} is not a valid IPv6 address") from None
    name = host.rstrip(".")
    labels = name.split(".")
    # WHATWG URL parsing treats a host whose last label is numeric as an IPv4 address, in any base
    # and any number of parts: only the canonical dotted-decimal form is accepted.
    if labels and _NUMERIC_LABEL.match(labels[-1]):
        if not _DOTTED.match(name):
            raise BlockedURLError(f"{host!r} is a numeric host in a non-canonical form")
        return ipaddress.IPv4Address(name)
    return None


@dataclass
class Guard:
    """Decides whether a URL may be fetched."""

    resolver: Resolver = system_resolver
    allow: frozenset[tuple[str, int]] = field(default_factory=frozenset)

    @staticmethod
    def parse(url: str) -> tuple[str, str, int]:
        """(scheme, host, port) of a URL this guard could allow; BlockedURLError otherwise."""
        if not isinstance(url, str) or len(url) > 8192 or any(c in url for c in "\r\n\t\x00 "):
            raise BlockedURLError("not a valid URL")
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise BlockedURLError("not a valid URL") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise BlockedURLError("only http and https URLs can be opened")
        if "@" in parts.netloc:
            raise BlockedURLError("URLs with credentials are not allowed")
        host = (parts.hostname or "").lower()
        if not host:
            raise BlockedURLError("the URL has no host")
        if "%" in host or "\\" in host:
            raise BlockedURLError(f"{host!r} is not a valid host")
        if ":" not in host:
            try:
                host.encode("ascii")
            except UnicodeEncodeError:
                try:
                    host = host.encode("idna").decode("ascii")
                except UnicodeError:
                    raise BlockedURLError(f"{host!r} is not a valid host name") from None
            name = host.rstrip(".")
            if not name or not all(_LABEL.match(label) for label in name.split(".")):
                raise BlockedURLError(f"{host!r} is not a valid host name")
        return scheme, host, port or (443 if scheme == "https" else 80)

    async def check(self, url: str, extra: frozenset[tuple[str, int]] = frozenset()) -> list[str]:
        """Raise BlockedURLError unless the URL's host and all its addresses are public."""
        scheme, host, port = self.parse(url)
        try:
            return await self.addresses(host, port, extra)
        except PrivateAddressError as exc:
            shown = f"[{host}]" if ":" in host else host
            exc.origin = f"{scheme}://{shown}:{port}"
            raise

    async def addresses(
        self, host: str, port: int, extra: frozenset[tuple[str, int]] = frozenset()
    ) -> list[str]:
        """The addresses to connect to for host:port, each checked; BlockedURLError otherwise.

        The proxy connects to exactly these, so the answer checked is the answer used (no second
        lookup for a rebinding DNS server to change). `extra` are (host, port) pairs let through
        for this caller only (an origin the user allowed in config and approved)."""
        if (host, port) in self.allow or (host, port) in extra:
            if literal_ip(host) is not None:
                return [host.strip("[]")]
            return await self.resolver(host.rstrip("."))
        ip = literal_ip(host)
        if ip is not None:
            if not is_public(ip):
                raise PrivateAddressError(f"{host} is not a public address", _origin(host, port))
            return [str(ip)]
        addresses = await self.resolver(host.rstrip("."))
        if not addresses:
            raise BlockedURLError(f"{host!r} resolves to no address")
        for raw in addresses:
            try:
                addr = ipaddress.ip_address(raw.split("%", 1)[0])
            except ValueError:
                raise BlockedURLError(f"{host!r} resolves to an unusable address") from None
            if "%" in raw or not is_public(addr):
                raise PrivateAddressError(
                    f"{host!r} resolves to a non-public address ({raw})", _origin(host, port)
                )
        return list(addresses)


def _origin(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"https://{shown}:{port}" if port == 443 else f"http://{shown}:{port}"


def allow_from_env(value: str) -> frozenset[tuple[str, int]]:
    """Parse the test-only `host:port,host:port` allowance."""
    out: set[tuple[str, int]] = set()
    for item in filter(None, (s.strip() for s in value.split(","))):
        host, _, port = item.rpartition(":")
        if host and port.isdigit():
            out.add((host.strip("[]").lower(), int(port)))
    return frozenset(out)


def static_resolver(table: dict[str, Iterable[str]]) -> Resolver:
    """A resolver from a fixed table (tests); unknown names do not resolve."""

    async def resolve(host: str) -> list[str]:
        if host not in table:
            raise BlockedURLError(f"cannot resolve {host!r}")
        return list(table[host])

    return resolve
