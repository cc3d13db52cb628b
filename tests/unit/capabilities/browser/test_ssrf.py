"""The SSRF guard against a corpus of hostile URLs; DNS names resolve through a test table."""

from __future__ import annotations

import pytest

from ggd.capabilities.browser.ssrf import BlockedURLError, Guard, static_resolver

DNS = {
    "example.com": ["93.184.215.14"],
    "dual.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "intranet.example.com": ["10.1.2.3"],
    "mixed.example.com": ["93.184.215.14", "192.168.1.10"],
    "meta.example.com": ["169.254.169.254"],
    "loop.example.com": ["127.0.0.1"],
    "loop6.example.com": ["::1"],
    "cgnat.example.com": ["100.64.0.1"],
    "mapped.example.com": ["::ffff:10.0.0.1"],
    "nat64.example.com": ["64:ff9b::a00:1"],
    "zero.example.com": ["0.0.0.0"],
    "multi.example.com": ["224.0.0.1"],
    "localhost": ["127.0.0.1", "::1"],
    "ula.example.com": ["fd12:3456::1"],
    "linklocal6.example.com": ["fe80::1"],
    "bench.example.com": ["198.18.0.1"],
    "doc.example.com": ["192.0.2.1"],
    "bcast.example.com": ["255.255.255.255"],
    "sixtofour.example.com": ["2002:a00:1::"],
    "teredo.example.com": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
}

ALLOWED = [
    "http://example.com/",
    "https://example.com:8443/path?q=1#frag",
    "https://dual.example.com/",
    "http://93.184.215.14/",
    "http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/",
    "https://EXAMPLE.com/",
    "http://example.com./",
]

BLOCKED = [
    # schemes and shapes
    "file:///etc/passwd",
    "ftp://example.com/",
    "gopher://example.com/",
    "javascript:alert(1)",
    "data:text/html,hi",
    "chrome://settings",
    "ws://example.com/",
    "http://",
    "http:///x",
    "http://user:pass@example.com/",
    "http://example.com@127.0.0.1/",
    "http://ex ample.com/",
    "http://example.com\\@127.0.0.1/",
    "http://exa%6dple.com/",
    "http://example.com:99999/",
    "http://example.com:-1/",
    "http://-bad-.example.com/",
    "http://" + "a" * 70 + ".com/",
    "http://example.com\r\nHost: x/",
    # loopback, in every spelling
    "http://127.0.0.1/",
    "http://127.0.0.1:8765/ws",
    "http://127.1/",
    "http://127.0.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.0x0.0x0.0x1/",
    "http://0177.0.0.1/",
    "http://0177.0000.0000.0001/",
    "http://017700000001/",
    "http://127.000.000.001/",
    "http://0x7f.1/",
    "http://127.0.0.1./",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://localhost/",
    "http://localhost.:80/",
    "http://LOCALHOST/",
    "http://loop.example.com/",
    "http://loop6.example.com/",
    # unspecified and broadcast
    "http://0.0.0.0/",
    "http://0/",
    "http://0x0/",
    "http://[::]/",
    "http://zero.example.com/",
    "http://255.255.255.255/",
    "http://bcast.example.com/",
    # private ranges
    "http://10.0.0.1/",
    "http://10.255.255.255/",
    "http://012.0.0.1/",
    "http://167772161/",
    "http://0xa000001/",
    "http://172.16.0.1/",
    "http://172.31.255.254/",
    "http://192.168.0.1/",
    "http://192.168.1.1:8080/admin",
    "http://3232235777/",
    "http://0xc0.0xa8.0x1.0x1/",
    "http://[::ffff:192.168.0.1]/",
    "http://[::ffff:c0a8:1]/",
    "http://[fd00::1]/",
    "http://[fc00::1]/",
    "http://intranet.example.com/",
    "http://mixed.example.com/",
    "http://mapped.example.com/",
    "http://nat64.example.com/",
    "http://ula.example.com/",
    "http://sixtofour.example.com/",
    "http://teredo.example.com/",
    # link-local and cloud metadata
    "http://169.254.169.254/latest/meta-data/",
    "http://169.254.169.254.:80/",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://0251.0376.0251.0376/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]/",
    "http://meta.example.com/",
    "http://linklocal6.example.com/",
    "http://[fd00:ec2::254]/",
    # CGNAT, benchmark, documentation, multicast, reserved
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://cgnat.example.com/",
    "http://198.18.0.1/",
    "http://bench.example.com/",
    "http://192.0.2.1/",
    "http://doc.example.com/",
    "http://224.0.0.1/",
    "http://multi.example.com/",
    "http://[ff02::1]/",
    "http://240.0.0.1/",
    "http://192.0.0.1/",
    # NAT64 local use, names that do not resolve
    "http://[64:ff9b:1::a00:1]/",
    "http://nowhere.invalid/",
]


@pytest.fixture
def guard() -> Guard:
    return Guard(resolver=static_resolver(DNS))


def test_the_corpus_is_big_enough() -> None:
    assert len(BLOCKED) >= 80


@pytest.mark.parametrize("url", ALLOWED)
async def test_public_urls_pass(guard: Guard, url: str) -> None:
    await guard.check(url)


@pytest.mark.parametrize("url", BLOCKED)
async def test_hostile_urls_never_reach_a_private_target(guard: Guard, url: str) -> None:
    with pytest.raises(BlockedURLError):
        await guard.check(url)


async def test_the_test_allowance_is_exact(guard: Guard) -> None:
    g = Guard(resolver=static_resolver(DNS), allow=frozenset({("127.0.0.1", 8080)}))
    await g.check("http://127.0.0.1:8080/page")
    for url in ("http://127.0.0.1:8081/", "http://localhost:8080/", "http://127.1:8080/"):
        with pytest.raises(BlockedURLError):
            await g.check(url)
