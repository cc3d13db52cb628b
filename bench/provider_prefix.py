"""Byte-stable request prefixes per wire kind: the 10-step task through a real ggd and each fake.

    .venv/bin/python bench/provider_prefix.py [--steps 10] [--json]

For each kind (openai-chat, openai-responses, gemini, anthropic) a fresh ggd is configured with
that kind pointed at its fake (tests/fakes/fake_openai.py, fake_responses.py, fake_gemini.py,
fake_anthropic.py) and runs
harness.py's task (N tool-calling turns, then an answer; the native kinds' steps also reason,
so their reasoning items / thought signatures are sent back on every later request). Measured
on the request bodies as the fake received them: for each request after the first, the share
of its bytes that is a byte-identical prefix of the request before it (aim: >= 95 % for the
OpenAI kinds, issue 33), and the share of input tokens the fake's emulated automatic prefix
cache served (tests/fakes/prefix_cache.py: 128-token blocks of the longest common prefix).
Anthropic caches only at the request's `cache_control` breakpoints: its cached share is what
the fake's emulation of that cache served (tests/fakes/anthropic_cache.py; aim: >= 85 % of
the input of requests 2..N+1, issue 33), and `cached_min` the lowest share of one request.
The run's cost is what the shipped price table (ggd/providers/data/prices.json) gives for the
tokens the fake reported, priced as the real model named in PRICED_AS (no price: "-").
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import exit_on_signals
from harness import make_workspace, script

from tests.e2e.daemon import Daemon, daemon_env
from tests.e2e.runs_helpers import finish, new_session, start
from tests.fakes.fake_anthropic import FakeAnthropic
from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeModel
from tests.fakes.fake_responses import FakeResponses
from tests.fakes.prefix_cache import cached_tokens, common_prefix, tokens

KINDS: dict[str, type[FakeModel]] = {
    "openai-chat": FakeModel,
    "openai-responses": FakeResponses,
    "gemini": FakeGemini,
    "anthropic": FakeAnthropic,
}
AIM = 0.95
AIM_ANTHROPIC_CACHED = 0.85
# The shipped price each kind's fake model is costed at (a kind not named here shows no cost).
PRICED_AS = {
    "openai-chat": "openai:gpt-4.1",
    "openai-responses": "openai:gpt-4.1",
    "gemini": "gemini:gemini-2.5-pro",
    "anthropic": "anthropic:claude-sonnet-4-0",
}
PRICES = Path(__file__).resolve().parents[1] / "ggd" / "providers" / "data" / "prices.json"


def shipped_price(ref: str) -> dict[str, Any]:
    """The price-table entry of "provider:model" as config.json's `prices` takes it."""
    provider, model = ref.split(":", 1)
    return dict(json.loads(PRICES.read_text())["providers"][provider]["models"][model])


def kind_script(kind: str, steps: int) -> list[dict[str, Any]]:
    out = []
    for i, step in enumerate(script(steps)):
        step = dict(step)
        if kind != "openai-chat" and step.get("toolCalls"):
            step["thinking"] = f"Step {i + 1}: which tool helps next?"
        out.append(step)
    return out


async def drive(daemon: Daemon, steps: int) -> dict[str, Any]:
    c = await daemon.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, f"do the {steps}-step task", approvalMode="yolo")
        return dict(await finish(c, rid, timeout=300))
    finally:
        await c.close()


def measure(kind: str, steps: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="gg-bench-prefix-"))
    home, ws = tmp / "home", tmp / "ws"
    home.mkdir()
    ws.mkdir()
    make_workspace(ws)
    fake = KINDS[kind](kind_script(kind, steps), zero_latency=True).start()
    entry = {"kind": "openai" if kind == "openai-chat" else kind, "baseUrl": fake.base_url}
    entry.update(apiKey="x", models=["fake-model"])
    config: dict[str, Any] = {"model": "p:fake-model", "providers": {"p": entry}}
    if kind in PRICED_AS:
        config["prices"] = {"p:fake-model": shipped_price(PRICED_AS[kind])}
    (home / "config.json").write_text(json.dumps(config))
    env = daemon_env(home, {"GG_LOG_LEVEL": "warning", "HOME": str(tmp)})
    daemon = Daemon(home, ws, env)
    try:
        daemon.start()
        end = asyncio.run(drive(daemon, steps))
    finally:
        if daemon.proc is not None:
            daemon.stop()
        fake.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    raw = fake.raw_requests
    pairs = [(common_prefix(p, c), len(p), len(c)) for p, c in itertools.pairwise(raw)]
    # Of the request before: how much of it the next one repeats byte for byte (all but the
    # closing brackets when the body only grows at its end). Of the request itself: how much
    # of it is that repeated prefix (the rest is the new turn: a tool result, an answer).
    kept = [same / prev for same, prev, _ in pairs]
    shares = [same / cur for same, _, cur in pairs]
    later = range(1, len(raw))
    cached = sum(cached_tokens(raw[i], raw[:i]) for i in later)
    prompt = sum(tokens(raw[i]) for i in later)
    extra: dict[str, Any] = {}
    if isinstance(fake, FakeAnthropic):  # breakpoints, not automatic prefixes
        uses = fake.cache_uses[1:]
        cached = sum(u.cache_read_input_tokens for u in uses)
        prompt = sum(u.total for u in uses)
        shares = [u.cache_read_input_tokens / u.total for u in uses if u.total]
        extra["cached_min"] = min(shares, default=0.0)
    usage = end.get("usage") or {}
    return {
        "kind": kind,
        "status": end.get("type"),
        "cost_usd": usage.get("costUsd"),
        "priced_as": PRICED_AS.get(kind),
        "requests": len(raw),
        "kept_min": min(kept, default=0.0),
        "prefix_min": min(shares, default=0.0),
        "prefix_mean": sum(shares) / max(1, len(shares)),
        "cached_share": cached / max(1, prompt),
        "bytes_last": len(raw[-1]) if raw else 0,
        "mismatches": len(fake.mismatches),
        **extra,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    exit_on_signals()
    rows = [measure(kind, args.steps) for kind in KINDS]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{args.steps}-step task, request bodies as each fake received them")
        print(
            "kind              status         reqs  previous kept (min)"
            "  prefix of request (min / mean)  cached input  cost (priced as)"
        )
        for r in rows:
            cost = "-" if r["cost_usd"] is None else f"${r['cost_usd']:.4f} ({r['priced_as']})"
            print(
                f"{r['kind']:<17} {r['status']:<14} {r['requests']:>4}  {r['kept_min']:>19.2%}"
                f"  {r['prefix_min']:>15.1%} / {r['prefix_mean']:>5.1%}  {r['cached_share']:>12.1%}"
                f"  {cost}"
            )
    ok = all(
        r["status"] == "run_completed" and r["mismatches"] == 0 and r["kept_min"] >= AIM
        for r in rows
        if r["kind"].startswith("openai")
    )
    ok = ok and all(
        r["status"] == "run_completed" and r["cached_share"] >= AIM_ANTHROPIC_CACHED
        for r in rows
        if r["kind"] == "anthropic"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
