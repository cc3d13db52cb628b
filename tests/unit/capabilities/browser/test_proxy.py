"""The guard proxy with raw sockets: what Chromium would send, checked before a byte leaves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

import pytest

from ggd.capabilities.browser.proxy import GuardProxy
from ggd.capabilities.browser.ssrf import BlockedURLError, Guard
from tests.e2e.browser_server import Server


@pytest.fixture
def servers() -> Iterable[tuple[Server, Server]]:
    allowed = Server({"/1": (200, {"Content-Type": "text/plain"}, b"one")})
    private = Server({}, fallback=(200, {}, b"PRIVATE"))
    yield allowed, private
    allowed.close()
    private.close()


class CountingResolver:
    """A fixed table that counts lookups (the proxy must look a name up once, then use it)."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.calls: list[str] = []

    async def __call__(self, host: str) -> list[str]:
        self.calls.append(host)
        if host not in self.table:
            raise BlockedURLError(f"cannot resolve {host!r}")
        return self.table[host]


@pytest.fixture
async def proxy_for(servers: tuple[Server, Server]) -> AsyncIterator[object]:
    made: list[GuardProxy] = []

    async def make(guard: Guard) -> GuardProxy:
        proxy = GuardProxy(guard.addresses, timeout=10)
        await proxy.start()
        made.append(proxy)
        return proxy

    yield make
    for proxy in made:
        await proxy.close()


async def _exchange(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    try:
        answer = await asyncio.wait_for(reader.read(), 10)  # the proxy closes after one answer
    except ConnectionResetError:  # closed with our bytes unread: nothing was answered
        answer = b""
    writer.close()
    return answer


async def test_a_plain_request_to_a_private_port_is_refused_before_it_leaves(
    servers: tuple[Server, Server], proxy_for: object
) -> None:
    allowed, private = servers
    proxy = await proxy_for(Guard(allow=frozenset({("127.0.0.1", allowed.port)})))  # type: ignore[operator]
    ok = await _exchange(proxy.port, f"GET {allowed.origin}/1 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert ok.startswith(b"HTTP/1.0 200") and ok.endswith(b"one")
    for request in (
        f"GET http://127.0.0.1:{private.port}/x HTTP/1.1\r\n\r\n",
        f"CONNECT 127.0.0.1:{private.port} HTTP/1.1\r\n\r\n",
        f"GET http://localhost:{private.port}/ HTTP/1.1\r\n\r\n",
        f"GET http://[::ffff:127.0.0.1]:{private.port}/ HTTP/1.1\r\n\r\n",
        f"CONNECT 2130706433:{private.port} HTTP/1.1\r\n\r\n",
        f"GET /relative HTTP/1.1\r\nHost: 127.0.0.1:{private.port}\r\n\r\n",
        f"GET ftp://127.0.0.1:{private.port}/ HTTP/1.1\r\n\r\n",
    ):
        answer = await _exchange(proxy.port, request.encode())
        assert answer.startswith(b"HTTP/1.1 403") and b"SSRF guard" in answer, request
    assert private.hits == []
    assert len(proxy.blocked) == 7


async def test_a_second_request_on_the_connection_never_reaches_the_first_upstream(
    servers: tuple[Server, Server], proxy_for: object
) -> None:
    allowed, private = servers
    proxy = await proxy_for(Guard(allow=frozenset({("127.0.0.1", allowed.port)})))  # type: ignore[operator]
    two = (
        f"GET {allowed.origin}/1 HTTP/1.1\r\nConnection: keep-alive\r\n\r\n"
        f"GET http://127.0.0.1:{private.port}/x HTTP/1.1\r\n\r\n"
    )
    answer = await _exchange(proxy.port, two.encode())
    assert b"Connection: close" in answer and answer.count(b"HTTP/1.") == 1
    assert allowed.hits == ["/1"] and private.hits == []


async def test_the_proxy_connects_to_the_address_it_checked_after_one_lookup(
    servers: tuple[Server, Server], proxy_for: object
) -> None:
    allowed, _private = servers
    resolver = CountingResolver({"dev.test": ["127.0.0.1"]})
    guard = Guard(resolver=resolver, allow=frozenset({("dev.test", allowed.port)}))
    proxy = await proxy_for(guard)  # type: ignore[operator]
    answer = await _exchange(
        proxy.port, f"GET http://dev.test:{allowed.port}/1 HTTP/1.1\r\n\r\n".encode()
    )
    assert answer.endswith(b"one") and resolver.calls == ["dev.test"]
    # a name that resolves to a private address is refused, looked up once as well
    resolver.table["rebind.test"] = ["127.0.0.1"]
    answer = await _exchange(
        proxy.port, f"CONNECT rebind.test:{allowed.port} HTTP/1.1\r\n\r\n".encode()
    )
    assert answer.startswith(b"HTTP/1.1 403") and b"non-public" in answer
    assert resolver.calls == ["dev.test", "rebind.test"]


async def test_malformed_requests_get_an_answer_not_a_hang(proxy_for: object) -> None:
    proxy = await proxy_for(Guard())  # type: ignore[operator]
    assert (await _exchange(proxy.port, b"NONSENSE\r\n\r\n")).startswith(b"HTTP/1.1 400")
    assert (await _exchange(proxy.port, b"GET x HTTP/1.1\r\n" + b"a: b\r\n" * 20000)) == b""
    assert (await _exchange(proxy.port, b"CONNECT example.com HTTP/1.1\r\n\r\n")).startswith(
        b"HTTP/1.1 403"
    )


async def test_connect_tunnels_both_ways_to_an_allowed_host(
    servers: tuple[Server, Server], proxy_for: object
) -> None:
    allowed, _private = servers
    proxy = await proxy_for(Guard(allow=frozenset({("127.0.0.1", allowed.port)})))  # type: ignore[operator]
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(f"CONNECT 127.0.0.1:{allowed.port} HTTP/1.1\r\n\r\n".encode())
    assert (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).startswith(b"HTTP/1.1 200")
    writer.write(b"GET /1 HTTP/1.0\r\n\r\n")  # inside the tunnel: bytes to the server as they are
    assert (await asyncio.wait_for(reader.read(), 10)).endswith(b"one")
    writer.close()
    assert allowed.hits == ["/1"]
