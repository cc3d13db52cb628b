"""The title rule and the reading of a model's title reply (ggd/app/titles.py)."""

from __future__ import annotations

from ggd.app.titles import clean_title, title_model
from ggd.providers import build_registry


def test_a_reply_becomes_a_short_clean_title() -> None:
    assert clean_title('"Sorting dicts by a field."') == "Sorting dicts by a field"
    assert clean_title("Title: Fix the flaky login test\nmore text") == "Fix the flaky login test"
    assert clean_title("\n\n**Refactor the parser**\n") == "Refactor the parser"
    assert clean_title("  .  ") is None and clean_title("") is None
    long = clean_title("word " * 30)
    assert long is not None and len(long) <= 60 and long.endswith("word…")


def test_who_is_asked_for_a_title() -> None:
    hosted = build_registry(
        {"model": "openai:gpt-4.1-mini", "providers": {"openai": {"apiKey": "k"}}}, {}
    )
    local = build_registry(
        {"providers": {"lab": {"baseUrl": "http://127.0.0.1:8080/v1", "models": ["m"]}}}, {}
    )
    ref = hosted.default_model
    assert title_model(None, hosted, ref) == ref  # a hosted API: the run's own model
    assert title_model(False, hosted, ref) is None  # off
    assert title_model(None, local, "lab:m") is None  # a local server: no extra request
    assert title_model("lab:m", local, "lab:m") == "lab:m"  # unless asked for
    demo = build_registry({}, {})
    assert title_model(None, demo, demo.default_model) is None
