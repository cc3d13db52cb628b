"""`gg models`' one listing request, read as reachable or not, over httpx's real client stack."""

from __future__ import annotations

import asyncio

import httpx

from ggd.providers.probe import listed_ids, probe_get


def _probe(handler: httpx.MockTransport) -> object:
    async def go() -> object:
        async with httpx.AsyncClient(transport=handler) as client:
            return await probe_get(client, "http://gw.test/v1/models")

    return asyncio.run(go())


def test_a_refused_key_is_reachable_with_the_reason() -> None:
    p = _probe(httpx.MockTransport(lambda r: httpx.Response(401, json={"error": "bad key"})))
    assert (p.reachable, p.problem) == (True, "the API key was refused (HTTP 401): check its key")


def test_a_server_without_a_listing_is_reachable_and_fine() -> None:
    p = _probe(httpx.MockTransport(lambda r: httpx.Response(404)))
    assert (p.reachable, p.problem, p.listed) == (True, None, None)


def test_a_connection_failure_and_a_timeout_are_unreachable() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    p = _probe(httpx.MockTransport(refuse))
    assert (
        p.reachable is False and p.problem == "cannot reach http://gw.test/v1/models: ConnectError"
    )
    p = _probe(httpx.MockTransport(slow))
    assert (
        p.reachable is False and "no answer from http://gw.test/v1/models within 5 s" == p.problem
    )


def test_listings_of_each_api_shape() -> None:
    assert listed_ids({"data": [{"id": "gpt-x"}, {"id": "o9"}]}) == ["gpt-x", "o9"]
    assert listed_ids({"models": [{"name": "models/gemini-z"}]}) == ["gemini-z"]
    assert listed_ids({"object": "list"}) is None
    assert listed_ids(["not", "a", "dict"]) is None
