"""Provider kinds in config: which wire API each entry speaks, its URL and where its key comes from."""

from __future__ import annotations

from typing import Any

import pytest

from ggd.providers import OpenAICompatProvider, build_registry
from ggd.providers.anthropic import AnthropicProvider


def _anthropic(reg: Any, ref: str | None = None) -> tuple[AnthropicProvider, str]:
    provider, model = reg.get(ref)
    assert isinstance(provider, AnthropicProvider)
    return provider, model


def test_an_anthropic_model_needs_only_the_usual_key() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant", "GG_MODEL": "anthropic:claude-sonnet-4-5"}
    reg = build_registry({}, env, None, None)
    provider, model = _anthropic(reg)
    assert reg.default_model == "anthropic:claude-sonnet-4-5" and model == "claude-sonnet-4-5"
    assert provider.base_url == "https://api.anthropic.com/v1" and provider._api_key == "sk-ant"


def test_anthropic_base_url_from_the_environment_gets_its_v1() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/gateway/"}
    reg = build_registry({}, env, "anthropic:claude-x", None)
    assert _anthropic(reg)[0].base_url == "http://127.0.0.1:9/gateway/v1"


def test_a_named_anthropic_kind_uses_the_official_api_and_its_key() -> None:
    config = {"model": "claude:claude-opus-4-1", "providers": {"claude": {"kind": "anthropic"}}}
    reg = build_registry(config, {"ANTHROPIC_API_KEY": "sk-ant"}, None, None)
    provider, _ = _anthropic(reg)
    assert provider.base_url == "https://api.anthropic.com/v1" and provider._api_key == "sk-ant"
    assert provider.name == "claude"


def test_a_gateway_of_kind_anthropic_takes_the_kinds_key_unless_told_otherwise() -> None:
    config = {
        "model": "gw:claude-x",
        "providers": {"gw": {"kind": "anthropic", "baseUrl": "https://gw.example.com"}},
    }
    env = {"ANTHROPIC_API_KEY": "sk-ant", "GW_KEY": "sk-gw"}
    provider, _ = _anthropic(build_registry(config, env, None, None))
    assert provider.base_url == "https://gw.example.com/v1" and provider._api_key == "sk-ant"
    own = {"gw": {**config["providers"]["gw"], "apiKeyEnv": "GW_KEY"}}
    reg = build_registry({**config, "providers": own}, env, None, None)
    assert _anthropic(reg)[0]._api_key == "sk-gw"


def test_the_well_known_name_picks_its_kind_and_params_apply() -> None:
    config = {
        "model": "anthropic:claude-x",
        "providers": {"anthropic": {"maxTokens": 1000, "modelParams": {"claude-x": {"topP": 0.5}}}},
    }
    reg = build_registry(config, {"ANTHROPIC_API_KEY": "k"}, None, None)
    provider, _ = _anthropic(reg)
    params = provider.params_for("claude-x")
    assert params.max_tokens == 1000 and params.top_p == 0.5


@pytest.mark.parametrize("kind", ["openai", "openai-chat"])
def test_openai_is_the_old_name_of_openai_chat(kind: str) -> None:
    config = {
        "model": "work:big",
        "providers": {"work": {"kind": kind, "baseUrl": "http://127.0.0.1:9/v1"}},
    }
    provider, _ = build_registry(config, {}, None, None).get()
    assert isinstance(provider, OpenAICompatProvider) and not isinstance(
        provider, AnthropicProvider
    )


def test_a_chat_kind_still_needs_a_base_url_and_a_bad_kind_names_them_all() -> None:
    with pytest.raises(ValueError, match=r"providers\.work\.baseUrl is required"):
        build_registry({"providers": {"work": {"kind": "openai-chat"}}}, {}, None, None)
    with pytest.raises(ValueError) as err:
        build_registry({"providers": {"work": {"kind": "claude"}}}, {}, None, None)
    assert "providers.work.kind must be one of openai, llamacpp" in str(err.value)
    assert "anthropic" in str(err.value) and "'claude'" in str(err.value)


def test_an_anthropic_key_alone_is_enough_and_openai_keeps_precedence() -> None:
    reg = build_registry({}, {"ANTHROPIC_API_KEY": "sk-ant"}, None, None)
    provider, _ = _anthropic(reg)
    assert reg.default_model == "anthropic:claude-sonnet-4-6" and provider._api_key == "sk-ant"
    reg = build_registry({}, {"ANTHROPIC_API_KEY": "k", "GG_MODEL": "claude-haiku-4-5"}, None, None)
    assert reg.default_model == "anthropic:claude-haiku-4-5"
    both = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "o"}
    assert build_registry({}, both, None, None).default_model == "openai:gpt-4.1-mini"
    # Through a gateway the official model name is not assumed: the model must be named.
    gateway = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    with pytest.raises(ValueError, match="model is not set"):
        build_registry({}, gateway, None, None)


def test_the_docs_anthropic_example_builds_what_it_shows() -> None:
    import json
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "providers.md").read_text()
    section = text.split('kind "anthropic"', 1)[1]
    example = json.loads(section.split("```json", 1)[1].split("```", 1)[0])
    env = {"ANTHROPIC_API_KEY": "sk-ant", "GATEWAY_KEY": "sk-gw"}
    reg = build_registry(example, env)
    provider, model = _anthropic(reg)
    assert model == example["model"].split(":", 1)[1] and provider._api_key == "sk-ant"
    assert provider.params_for("claude-haiku-4-5").max_tokens == 8192
    gateway, _ = _anthropic(reg, "gateway:claude-x")
    assert gateway.base_url.endswith("/anthropic/v1") and gateway._api_key == "sk-gw"
