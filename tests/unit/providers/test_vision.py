"""Which models take images: the `images` key of a provider entry and the defaults."""

from __future__ import annotations

import pytest

from ggd.providers import build_registry
from ggd.providers.vision import accepts_images, parse_images


@pytest.mark.parametrize(
    ("kind", "model", "expected"),
    [
        ("openai", "gpt-4o-mini", True),
        ("openai", "gpt-4.1", True),
        ("openai", "gpt-5-codex", True),
        ("openai", "o3", True),
        ("openai", "o4-mini", True),
        ("openai", "anthropic/claude-sonnet-4", True),
        ("openai", "qwen2.5vl:7b", True),
        ("openai", "Qwen2.5-VL-72B-Instruct", True),
        ("openai", "llava:13b", True),
        ("openai", "llama3.2-vision", True),
        ("openai", "gpt-3.5-turbo", False),
        ("openai", "deepseek-chat", False),
        ("openai", "qwen2.5-coder:7b", False),
        ("openai", "solver", False),  # "o1" inside a word is not the o1 family
        ("openai-chat", "fake-model", False),
        ("anthropic", "claude-haiku-4-5", True),
        ("gemini", "gemini-2.5-flash", True),
        ("openai-responses", "anything", True),
        ("llamacpp", "llava-gguf", False),
    ],
)
def test_defaults_by_kind_and_model_name(kind: str, model: str, expected: bool) -> None:
    assert accepts_images(kind, None, model) is expected


def test_config_wins_over_the_defaults() -> None:
    assert accepts_images("openai", True, "gpt-3.5-turbo") is True
    assert accepts_images("anthropic", False, "claude-opus-4") is False
    assert accepts_images("openai", frozenset({"mine"}), "mine") is True
    assert accepts_images("openai", frozenset({"mine"}), "gpt-4o") is False


@pytest.mark.parametrize("bad", ["yes", 1, ["ok", ""], {"a": True}])
def test_a_malformed_images_value_names_the_key(bad: object) -> None:
    with pytest.raises(ValueError, match=r"providers\.x\.images must be true, false or a list"):
        parse_images("providers.x", bad)


def test_the_registry_answers_per_model_reference() -> None:
    config = {
        "model": "local:coder",
        "providers": {
            "local": {"baseUrl": "http://127.0.0.1:9/v1", "images": ["eyes"]},
            "cloud": {"baseUrl": "http://127.0.0.1:9/v1"},
        },
    }
    reg = build_registry(config, {})
    assert reg.accepts_images() is False  # the default model, local:coder
    assert reg.accepts_images("local:eyes") is True
    assert reg.accepts_images("cloud:gpt-4o") is True
    assert reg.accepts_images("cloud:deepseek-chat") is False
    assert reg.accepts_images("demo:gg-demo") is False
    # The kind a well-known name picks counts, with no "kind" key: every Claude model reads images.
    claude = build_registry({"model": "anthropic:house-model", "providers": {"anthropic": {}}}, {})
    assert claude.accepts_images() is True
    with pytest.raises(ValueError, match=r"providers\.bad\.images"):
        build_registry({"providers": {"bad": {"baseUrl": "http://x/v1", "images": "all"}}}, {})
