"""Shared fixtures: a temp GG_HOME, fast retry options with a recording sleep, a fake model factory."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from ggd.providers import OpenAICompatProvider, ProviderOptions
from tests.fakes.fake_openai import FakeModel


@pytest.fixture(autouse=True)
def gg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own GG_HOME."""
    home = tmp_path / "gg_home"
    home.mkdir()
    monkeypatch.setenv("GG_HOME", str(home))
    return home


class SleepRecorder:
    """Stands in for asyncio.sleep so backoff delays are asserted, not waited."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def options(sleeps: SleepRecorder) -> ProviderOptions:
    return ProviderOptions(
        backoff_base=0.1,
        backoff_cap=1.0,
        retry_after_cap=5.0,
        read_timeout=10.0,
        rng=random.Random(7),
        sleep=sleeps,
    )


@pytest.fixture
def fake() -> Iterator[Any]:
    """fake(script) starts a FakeModel that is stopped after the test."""
    started: list[FakeModel] = []

    def make(script: Any, **kw: Any) -> FakeModel:
        fm = FakeModel(script, **kw).start()
        started.append(fm)
        return fm

    yield make
    for fm in started:
        fm.stop()


@pytest.fixture
async def provider_for(options: ProviderOptions) -> AsyncIterator[Any]:
    """provider_for(fake_model) -> an OpenAICompatProvider pointed at it."""
    made: list[OpenAICompatProvider] = []

    def make(fm: FakeModel, **kw: Any) -> OpenAICompatProvider:
        p = OpenAICompatProvider(
            fm.base_url, kw.pop("api_key", "sk-test"), name="fake", options=options, **kw
        )
        made.append(p)
        return p

    yield make
    for p in made:
        await p.aclose()
