"""Config resolution: env, config.json, credentials file, well-known URLs, demo fallback, errors."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from ggd.providers import (
    WELL_KNOWN,
    DemoProvider,
    OpenAICompatProvider,
    ProviderRegistry,
    build_registry,
    resolve_provider,
)
from tests.fakes.fake_openai import FakeModel
from tests.unit.providers.helpers import collect, request


def compat(registry: ProviderRegistry, ref: str | None = None) -> tuple[OpenAICompatProvider, str]:
    provider, model = registry.get(ref)
    assert isinstance(provider, OpenAICompatProvider) and not provider.is_demo
    return provider, model


def test_nothing_configured_is_the_demo(gg_home: Path) -> None:
    reg = build_registry({}, {}, None, gg_home / "credentials.json")
    assert reg.is_demo and reg.default_model == "demo:gg-demo"
    provider, model = reg.get(None)
    assert isinstance(provider, DemoProvider) and model == "gg-demo"
    assert reg.models() == ["demo:gg-demo"]
    assert isinstance(resolve_provider({}, {}, None, None), DemoProvider)


def test_env_key_and_model_make_an_openai_provider() -> None:
    reg = build_registry({}, {"OPENAI_API_KEY": "sk-env", "GG_MODEL": "gpt-4o-mini"}, None, None)
    provider, model = compat(reg)
    assert not reg.is_demo and reg.default_model == "openai:gpt-4o-mini" and model == "gpt-4o-mini"
    assert provider.name == "openai" and provider.base_url == WELL_KNOWN["openai"]
    assert provider._api_key == "sk-env" and provider.default_model == "gpt-4o-mini"


def test_env_base_url_alone_and_cli_model_wins_over_gg_model() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9999/v1/", "GG_MODEL": "from-env"}
    reg = build_registry({"model": "from-config"}, env, "qwen2.5:7b", None)
    provider, model = compat(reg)
    assert provider.base_url == "http://127.0.0.1:9999/v1" and provider._api_key is None
    assert model == "qwen2.5:7b" and reg.default_model == "openai:qwen2.5:7b"


def test_env_key_without_model_defaults_to_a_small_openai_model() -> None:
    reg = build_registry({}, {"OPENAI_API_KEY": "sk"}, None, None)
    assert reg.default_model == "openai:gpt-4.1-mini"


def test_config_providers_with_well_known_urls_and_key_sources(gg_home: Path) -> None:
    creds = gg_home / "credentials.json"
    creds.write_text(json.dumps({"openrouter": {"apiKey": "sk-cred"}}))
    config = {
        "model": "ollama:qwen2.5-coder",
        "providers": {
            "ollama": {"models": ["qwen2.5-coder", "llama3.2"], "contextWindow": 32768},
            "lmstudio": {},
            "openrouter": {"models": ["anthropic/claude"]},
            "deepseek": {"apiKeyEnv": "MY_DS_KEY"},
            "openai": {"apiKey": "sk-inline"},
            "work": {
                "baseUrl": "https://llm.example.com/v1",
                "apiKeyEnv": "WORK_KEY",
                "models": ["big"],
            },
        },
    }
    env = {"MY_DS_KEY": "sk-ds", "WORK_KEY": "sk-work", "OPENAI_API_KEY": "sk-ignored"}
    reg = build_registry(config, env, None, creds)
    assert reg.default_model == "ollama:qwen2.5-coder" and not reg.is_demo
    for name in ("ollama", "lmstudio", "openrouter", "deepseek", "openai"):
        assert compat(reg, f"{name}:m")[0].base_url == WELL_KNOWN[name]
    assert compat(reg, "openrouter:x")[0]._api_key == "sk-cred"
    assert compat(reg, "deepseek:x")[0]._api_key == "sk-ds"
    assert compat(reg, "openai:x")[0]._api_key == "sk-inline"
    work, model = compat(reg, "work:big")
    assert (
        work.base_url == "https://llm.example.com/v1"
        and work._api_key == "sk-work"
        and model == "big"
    )
    assert compat(reg, "llama3.2") == (
        reg.get("ollama:x")[0],
        "llama3.2",
    )  # bare model: default provider
    assert reg.context_window("ollama:x") == 32768 and reg.context_window("work:big") is None
    assert reg.models()[:3] == [
        "ollama:qwen2.5-coder",
        "ollama:llama3.2",
        "openrouter:anthropic/claude",
    ]
    assert "work:big" in reg.models() and "demo:gg-demo" in reg.models()


def test_config_without_model_uses_the_first_listed_model() -> None:
    reg = build_registry(
        {"providers": {"local": {"baseUrl": "http://127.0.0.1:8080/v1", "models": ["m1"]}}},
        {},
        None,
        None,
    )
    assert reg.default_model == "local:m1"


def test_well_known_prefix_in_gg_model_needs_no_config() -> None:
    reg = build_registry({}, {"GG_MODEL": "ollama:llama3.2"}, None, None)
    provider, model = compat(reg)
    assert (
        provider.name == "ollama"
        and provider.base_url == WELL_KNOWN["ollama"]
        and model == "llama3.2"
    )


def test_demo_is_always_reachable_by_name() -> None:
    reg = build_registry({}, {"OPENAI_API_KEY": "sk"}, None, None)
    provider, model = reg.get("demo:gg-demo")
    assert provider.is_demo and model == "gg-demo" and not reg.is_demo


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"providers": {"openai": {"baseURL": "http://x"}}}, "providers.openai.baseURL"),
        ({"providers": {"mine": {}}}, "providers.mine.baseUrl"),
        ({"providers": {"mine": {"baseUrl": "ftp://x"}}}, "providers.mine.baseUrl"),
        ({"providers": {"ollama": {"models": "llama"}}}, "providers.ollama.models"),
        ({"providers": {"ollama": {"contextWindow": "big"}}}, "providers.ollama.contextWindow"),
        ({"providers": {"ollama": {"apiKey": 5}}}, "providers.ollama.apiKey"),
        ({"providers": {"ollama": "http://x"}}, "providers.ollama"),
        ({"providers": ["ollama"]}, "providers"),
        ({"model": 3}, "model"),
        ({"providers": {"local": {"baseUrl": "http://127.0.0.1:1/v1"}}}, "model"),
    ],
)
def test_malformed_config_names_the_bad_key(config: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named.replace(".", r"\.")):
        build_registry(config, {}, None, None)


def test_bad_credentials_file_is_a_clear_error_without_its_path(gg_home: Path) -> None:
    creds = gg_home / "credentials.json"
    creds.write_text("{not json")
    with pytest.raises(ValueError, match=r"credentials\.json") as info:
        build_registry({}, {}, None, creds)
    assert str(gg_home) not in str(info.value)


async def test_registry_provider_talks_to_the_fake_and_closes(gg_home: Path) -> None:
    with FakeModel([{"text": "configured"}]) as fm:
        config = {
            "model": "fake:fake-model",
            "providers": {"fake": {"baseUrl": fm.base_url, "apiKey": "k"}},
        }
        reg = build_registry(config, {}, None, None)
        provider, model = reg.get(None)
        events = await collect(provider, request(model=model))
        assert events[-1].text == "configured"  # type: ignore[union-attr]
        assert fm.requests[0]["model"] == "fake-model"
        await reg.aclose()


async def test_a_prefetched_model_list_serves_every_check_with_one_request() -> None:
    with FakeModel([], models=["fake-model", "other"]) as fm:
        config = {
            "model": "fake:fake-model",
            "providers": {"fake": {"baseUrl": fm.base_url, "apiKey": "k"}},
        }
        reg = build_registry(config, {}, None, None)
        reg.prefetch()
        reg.prefetch()  # a second start-up call does not ask again
        # Checks that arrive while the list is in flight wait for it instead of asking again.
        ok, other, typo = await asyncio.gather(
            reg.check_model(None), reg.check_model("fake:other"), reg.check_model("fake:nope")
        )
        assert ok is None and other is None
        assert typo is not None and "'nope' is not offered by fake" in typo
        assert await reg.check_model(None) is None
        assert fm.model_list_requests == 1
        await reg.aclose()


async def test_a_prefetch_that_cannot_reach_the_endpoint_costs_the_first_run_nothing() -> None:
    with socket.socket() as s:  # a port with nothing listening on it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = {
        "model": "fake:fake-model",
        "providers": {"fake": {"baseUrl": f"http://127.0.0.1:{port}/v1", "apiKey": "k"}},
    }
    reg = build_registry(config, {}, None, None)
    reg.prefetch()
    # An endpoint that does not answer is one that lists nothing: the run goes ahead and meets
    # the real error on its chat request, as without the prefetch.
    assert await reg.check_model(None) is None
    await reg.aclose()


async def test_closing_the_registry_drops_a_list_still_in_flight(gg_home: Path) -> None:
    with socket.socket() as srv:  # accepts the connection, never answers
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        config = {
            "model": "fake:fake-model",
            "providers": {
                "fake": {"baseUrl": f"http://127.0.0.1:{srv.getsockname()[1]}/v1", "apiKey": "k"}
            },
        }
        reg = build_registry(config, {}, None, None)
        reg.prefetch()
        await asyncio.sleep(0)
        async with asyncio.timeout(5):
            await reg.aclose()
        assert reg._inflight == {}
