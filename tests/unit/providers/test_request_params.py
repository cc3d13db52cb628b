"""Request parameters: validated with the key named, merged per model, sent in the API's names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ggd.providers import ChatRequest, OpenAICompatProvider, build_registry
from ggd.providers.llamacpp import LlamaCppProvider


def _provider(entry: dict[str, Any], model: str = "m1") -> OpenAICompatProvider:
    config = {
        "model": f"p:{model}",
        "providers": {"p": {"baseUrl": "http://127.0.0.1:9/v1", "models": ["m1", "m2"], **entry}},
    }
    provider, _ = build_registry(config, {}).get(f"p:{model}")
    assert isinstance(provider, OpenAICompatProvider)
    return provider


def _body(provider: OpenAICompatProvider, model: str, tools: bool = True) -> dict[str, Any]:
    spec = {"type": "function", "function": {"name": "read", "parameters": {}}}
    req = ChatRequest(model=model, messages=[], tools=[spec] if tools else [], max_tokens=4096)
    return provider.build_body(req)


def test_provider_keys_are_sent_in_chat_completions_names() -> None:
    p = _provider(
        {
            "temperature": 0.2,
            "topP": 0.9,
            "maxTokens": 300,
            "seed": 7,
            "toolChoice": "required",
            "extraBody": {"cache_prompt": True, "route": {"a": 1}},
        }
    )
    body = _body(p, "m1")
    sent = {k: v for k, v in body.items() if k not in ("messages", "tools", "stream_options")}
    assert sent == {
        "model": "m1",
        "stream": True,
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 300,
        "seed": 7,
        "tool_choice": "required",
        "cache_prompt": True,
        "route": {"a": 1},
    }


def test_model_params_win_for_their_model_only() -> None:
    entry = {
        "temperature": 0.5,
        "seed": 1,
        "extraBody": {"a": 1, "b": 1},
        "modelParams": {"m2": {"temperature": 0, "extraBody": {"b": 2}}},
    }
    p = _provider(entry)
    one, two = _body(p, "m1"), _body(p, "m2")
    assert (one["temperature"], one["seed"], one["a"], one["b"]) == (0.5, 1, 1, 1)
    assert (two["temperature"], two["seed"], two["a"], two["b"]) == (0.0, 1, 1, 2)
    # Unset keys are not sent at all: the server's own defaults apply.
    assert "top_p" not in one and "tool_choice" not in one
    assert one["max_tokens"] == 4096  # the loop's limit when maxTokens is not set


def test_tool_choice_is_not_sent_without_tools() -> None:
    p = _provider({"toolChoice": "required"})
    assert "tool_choice" not in _body(p, "m1", tools=False)
    assert p.request_params(ChatRequest(model="m1", messages=[])) == {}


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        ({"temperature": 3}, "providers.p.temperature must be a number from 0 to 2"),
        ({"temperature": "hot"}, "providers.p.temperature must be a number"),
        ({"topP": 0}, "providers.p.topP must be a number above 0 to 1"),
        ({"maxTokens": 0}, "providers.p.maxTokens must be a positive integer"),
        ({"seed": 1.5}, "providers.p.seed must be an integer"),
        ({"toolChoice": "always"}, "providers.p.toolChoice must be"),
        ({"extraBody": [1]}, "providers.p.extraBody must be an object"),
        ({"extraBody": {"messages": []}}, "providers.p.extraBody.messages is set by gg"),
        (
            {"modelParams": {"m1": {"temp": 1}}},
            "providers.p.modelParams.m1.temp is not a known key",
        ),
        ({"modelParams": {"m1": {"seed": "x"}}}, "providers.p.modelParams.m1.seed must be"),
        ({"modelPath": "x.gguf"}, 'providers.p.modelPath needs "kind": "llamacpp"'),
        ({"kind": "vllm"}, "providers.p.kind must be one of openai, llamacpp"),
    ],
)
def test_bad_values_name_the_key(entry: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError) as exc:
        _provider(entry)
    assert named in str(exc.value)


def test_a_llamacpp_entry_makes_a_local_provider(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny-q4.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    config = {
        "model": "local:tiny-q4",
        "providers": {
            "local": {
                "kind": "llamacpp",
                "modelPath": str(gguf),
                "contextWindow": 2048,
                "chatTemplate": "chatml-tools",
                "temperature": 0,
            }
        },
    }
    reg = build_registry(config, {}, home=tmp_path)
    provider, model = reg.get(None)
    assert isinstance(provider, LlamaCppProvider) and model == "tiny-q4"
    assert provider.state == "stopped"
    assert reg.context_window("local:tiny-q4") == 2048
    assert provider.request_params(ChatRequest(model="tiny-q4", messages=[]))["temperature"] == 0
    with pytest.raises(ValueError, match=r"providers\.local\.modelPath is required"):
        build_registry({"providers": {"local": {"kind": "llamacpp"}}}, {})
    with pytest.raises(ValueError, match=r"providers\.local\.chatTemplate"):
        build_registry(
            {"providers": {"local": {"kind": "llamacpp", "modelPath": "x", "chatTemplate": "no"}}},
            {},
        )


def test_chat_completions_body_leaves_out_other_kinds_replay_data() -> None:
    p = _provider({})
    replay = {"kind": "anthropic", "blocks": []}
    msgs = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo", "gg_replay": replay},
    ]
    body = p.build_body(ChatRequest(model="m", messages=msgs))
    assert body["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo"},
    ]
    assert msgs[1]["gg_replay"] == replay  # the request itself is not changed


def test_reasoning_effort_per_model_and_a_runs_own_wins() -> None:
    p = _provider({"reasoningEffort": "low", "modelParams": {"m1": {"reasoningEffort": "high"}}})
    assert _body(p, "m1")["reasoning_effort"] == "high"
    assert _body(p, "m2")["reasoning_effort"] == "low"
    req = ChatRequest(model="m2", messages=[], reasoning_effort="minimal")
    assert p.build_body(req)["reasoning_effort"] == "minimal"
    assert "reasoning_effort" not in _body(_provider({}), "m1")
    with pytest.raises(ValueError, match=r"providers\.p\.reasoningEffort must be a word"):
        _provider({"reasoningEffort": ""})
