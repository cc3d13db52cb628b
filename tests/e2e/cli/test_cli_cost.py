"""Cost, budgets and reasoning in the `gg` CLI, against the real ggd and the scripted model.

Prices come from config.json (input $2, cached input $0.50, output $8 per million tokens); the
fake model reports OpenAI's cached and reasoning token details.
"""

from __future__ import annotations

import json

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)

PRICES = {"openai:fake-model": {"input": 2, "cachedInput": 0.5, "output": 8}}
USAGE_A = {"prompt": 1000, "completion": 100, "cached": 800}  # $0.0016
USAGE_B = {"prompt": 1200, "completion": 50, "cached": 1000, "reasoning": 20}  # $0.0013


def _config(env: CliEnv) -> None:
    env.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (env.home / "config.json").write_text(json.dumps({"prices": PRICES}))


def test_a_run_budget_flag_stops_the_run_and_says_how_to_raise_it(real_env: CliEnv) -> None:
    _config(real_env)
    (real_env.ws / "a.txt").write_text("a\n")
    (real_env.ws / "b.txt").write_text("b\n")
    real_env.model.add_steps(
        [
            {"toolCalls": [{"name": "read", "arguments": {"path": "a.txt"}}], "usage": USAGE_A},
            {"toolCalls": [{"name": "read", "arguments": {"path": "b.txt"}}], "usage": USAGE_B},
            {"text": "never asked for"},
        ]
    )
    res = real_env.run("-p", "read both", "--max-tokens", "1500", "--no-daemon")
    assert res.returncode == 1, res.stderr
    assert "gg: error: run budget reached: 2350 tokens of maxTokens 1500; raise it with" in (
        res.stderr
    )
    assert "--max-tokens N" in res.stderr
    assert len(real_env.model.requests) == 2
    bad = real_env.run("-p", "x", "--max-cost-usd", "nothing", "--no-daemon")
    assert bad.returncode == 2 and "not an amount of USD: nothing" in bad.stderr


def test_reasoning_is_dimmed_apart_from_the_answer_and_cost_shows_after_a_turn_and_in_status(
    real_env: CliEnv,
) -> None:
    _config(real_env)
    real_env.model.add_steps(
        [
            {"thinking": "The user greets me.", "text": "Hello there.", "usage": USAGE_A},
            {"text": "Again.", "usage": USAGE_B},
        ]
    )
    p = real_env.pty("--name", "costs")
    p.expect("gg> ")
    p.send("hi\r")
    p.expect("thinking: The user greets me.\n")
    p.expect("Hello there.")
    p.expect(r"this turn: 1,000 in \(800 cached\) · 100 out · \$0\.0016 · 1 requests")
    p.expect("gg> ")
    p.send("again\r")
    p.expect(r"this turn: 1,200 in \(1,000 cached\) · 50 out \(20 reasoning\) · \$0\.0013")
    p.expect("gg> ")
    p.send("/status\r")
    p.expect(r"session: costs \(s_")
    p.expect(r"model: openai:fake-model")
    p.expect(
        r"session: 2,200 in \(1,800 cached\) · 150 out \(20 reasoning\) · \$0\.0029 · 2 requests"
    )
    p.expect("gg> ")
    p.send("\x04")
    assert p.wait() == 0


def test_one_shot_output_carries_the_answer_only(real_env: CliEnv) -> None:
    real_env.model.add_steps(
        [{"thinking": "secret musing", "text": "The answer.", "usage": USAGE_A}]
    )
    res = real_env.run("-p", "q", "--reasoning-effort", "high", "--no-daemon")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "The answer.\n"
    assert "secret musing" in res.stderr  # shown, on stderr, never in the answer
    (body,) = real_env.model.requests
    assert body["reasoning_effort"] == "high"
