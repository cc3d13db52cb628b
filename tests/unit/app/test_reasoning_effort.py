"""reasoningEffort reaches ChatRequest.reasoning_effort for every wire kind: a run's own value,
else its model's configured one (a provider's `reasoningEffort`, or its modelParams')."""

from __future__ import annotations

from ggd.app.run import Run
from ggd.app.turns import _effort
from ggd.providers import build_registry


def _run(effort: str | None) -> Run:
    return Run(
        session_id="s",
        interactive=False,
        approval_mode="auto",
        model="p:m1",
        reasoning_effort=effort,
    )


def test_the_runs_effort_wins_over_the_models_and_the_providers() -> None:
    config = {
        "model": "p:m1",
        "providers": {
            "p": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "models": ["m1", "m2"],
                "reasoningEffort": "low",
                "modelParams": {"m1": {"reasoningEffort": "high"}},
            }
        },
    }
    provider, _ = build_registry(config, {}).get("p:m1")
    assert _effort(_run(None), provider, "m1") == "high"
    assert _effort(_run(None), provider, "m2") == "low"
    assert _effort(_run("minimal"), provider, "m1") == "minimal"


def test_a_provider_without_parameters_sends_only_the_runs() -> None:
    class Bare:
        pass

    assert _effort(_run(None), Bare(), "m") is None  # type: ignore[arg-type]
    assert _effort(_run("high"), Bare(), "m") == "high"  # type: ignore[arg-type]
