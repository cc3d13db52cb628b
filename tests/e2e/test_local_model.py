"""A real model through a real ggd: kind "llamacpp" serving SmolLM2-135M with llama.cpp's server.

`make local-models` installs xllamacpp and caches the GGUF (tests/local_models/fetch.py); without
them every test here skips and says why. One daemon (and so one llama.cpp server, whose prompt
cache keeps gg's ~1.5k-token system prompt between runs) serves the whole module. Each test picks
a model name of the one provider, and `modelParams` gives each name its own request parameters.

Assertions are about structure (a call parsed, executed, its result sent back under its id), never
about the wording of a 135M model, which runs at temperature 0 with a fixed seed.

Not here, because SmolLM2-135M cannot do them reliably under gg's ~1.5k-token system prompt (tried:
docs/providers.md): two parallel calls (it writes "```" and runs out of tokens) and a task answered
from a file (it calls tool_search, then answers in prose). They need a 0.5B+ coder model packaged
on PyPI.
"""

from __future__ import annotations

import json
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.local_models.fetch import SMOLLM, cache_dir, missing

from .daemon import Daemon, daemon_env
from .rpc_client import RpcClient
from .runs_helpers import finish, new_session, start, until

WHY = missing()
pytestmark = [pytest.mark.skipif(WHY is not None, reason=f"real-model tests: {WHY}")]

NOTES = "The secret word is PINEAPPLE.\n"
# llama.cpp does not hold this 135M model to a call grammar under the chatml-tools template: it
# writes its call as JSON, and since the prompt grew (task, todo_write, subagents listed) it opens
# a "```json" fence first and runs out of tokens in it. Banning that token (as "nofence" does) keeps
# the check on what it is about: a real streamed call parsed, run, and its result sent back.
ONE_CALL = {
    "toolChoice": "required",
    "extraBody": {"parallel_tool_calls": False, "logit_bias": [["```", False]]},
}
MODEL_PARAMS = {
    "forced": ONE_CALL,
    "talk": {"toolChoice": "none", "maxTokens": 400},
    "nofence": ONE_CALL,  # the loop-guard test's name for the same parameters
}


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One ggd whose default model is the local SmolLM2 (the server starts on first use)."""
    root = tmp_path_factory.mktemp("local")
    home, ws = root / "home", root / "project"
    home.mkdir(mode=0o700)
    ws.mkdir()
    (ws / "notes.txt").write_text(NOTES)
    (ws / "todo.txt").write_text("1. water the plants\n")
    config = {
        "model": "local:forced",
        "maxTurns": 8,
        "providers": {
            "local": {
                "kind": "llamacpp",
                "modelPath": str(cache_dir() / SMOLLM),
                "models": list(MODEL_PARAMS),
                # Room for gg's prompt and a few calls without compaction (8k tokens of KV: ~100 MB).
                "contextWindow": 8192,
                # One thread: on a loaded 2-core machine a second spinning thread halves speed.
                "threads": 1,
                "chatTemplate": "chatml-tools",
                "temperature": 0,
                "seed": 42,
                "maxTokens": 96,
                "modelParams": MODEL_PARAMS,
            }
        },
    }
    (home / "config.json").write_text(json.dumps(config))
    d = Daemon(home, ws, daemon_env(home)).start()
    yield d
    d.stop()


@asynccontextmanager
async def _client(d: Daemon) -> AsyncIterator[RpcClient]:
    c = await d.connect("unix")
    try:
        yield c
    finally:
        await c.close()


def _messages(home: Path, session_id: str) -> list[dict[str, Any]]:
    lines = (home / "sessions" / f"{session_id}.jsonl").read_text().splitlines()[1:]
    return [e["data"] for e in map(json.loads, lines) if e["type"] == "message"]


def _answered(messages: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(call, its tool result) for every call of the session; asserts each has exactly one."""
    results = {m["toolCallId"]: m for m in messages if m["role"] == "tool"}
    pairs = []
    for m in messages:
        for call in m.get("toolCalls") or []:
            assert call["id"] and call["id"] in results, (call, list(results))
            assert isinstance(call["arguments"], dict)
            pairs.append((call, results[call["id"]]))
    return pairs


async def _run(d: Daemon, model: str, prompt: str, timeout: float = 300) -> tuple[str, dict]:
    async with _client(d) as c:
        sid = await new_session(c)
        rid = await start(c, sid, prompt, model=f"local:{model}")
        end = await finish(c, rid, timeout=timeout)
        events = c.events(run_id=rid)
    starts = {e["toolCallId"]: e for e in events if e["type"] == "tool_call_start"}
    finishes = {e["toolCallId"]: e for e in events if e["type"] == "tool_call_finish"}
    assert starts.keys() == finishes.keys(), (starts, finishes)
    return sid, end


@pytest.mark.timeout(420)
async def test_a_forced_call_is_parsed_executed_and_its_result_sent_back(local: Daemon) -> None:
    sid, end = await _run(local, "forced", "Read the file notes.txt.")
    msgs = _answered_and_sent(local, sid)
    assert end["type"] in ("run_completed", "run_failed"), end
    calls = [m for m in msgs if m["role"] == "assistant" and m.get("toolCalls")]
    assert calls, f"no tool call parsed: {msgs}"
    # With toolChoice "required" and parallel calls off, every answer is exactly one call.
    assert all(len(m["toolCalls"]) == 1 for m in calls)


def _answered_and_sent(d: Daemon, sid: str) -> list[dict[str, Any]]:
    """The session's messages, after checking each call was answered under its own id and that
    a later model request carried an answer (an assistant message follows a result; the last
    result may be the one the run ended on)."""
    msgs = _messages(d.home, sid)
    pairs = _answered(msgs)
    went_back = [
        r for _c, r in pairs if any(m["role"] == "assistant" for m in msgs[msgs.index(r) + 1 :])
    ]
    assert len(went_back) >= len(pairs) - 1, "a result never went back to the model"
    return msgs


@pytest.mark.timeout(420)
async def test_a_server_killed_mid_stream_fails_the_run_and_the_next_one_restarts_it(
    local: Daemon,
) -> None:
    assert local.proc is not None
    async with _client(local) as c:
        sid = await new_session(c)
        rid = await start(c, sid, "Write a long story about a cat.", model="local:talk")
        await until(c, rid, "text_delta", timeout=300)
        servers = [
            p
            for p in psutil.Process(local.proc.pid).children(recursive=True)
            if "ggd.providers.llamacpp_server" in " ".join(p.cmdline())
        ]
        assert len(servers) == 1, servers
        servers[0].send_signal(signal.SIGKILL)
        end = await finish(c, rid, timeout=60)
    assert end["type"] == "run_failed", end
    assert end["errorCode"] == "server_error" and "llama.cpp server stopped" in end["error"]
    # The daemon is still there, and the next request starts a new server.
    _sid, again = await _run(local, "forced", "Read the file notes.txt.")
    assert again["type"] in ("run_completed", "run_failed") and again.get("errorCode") != (
        "server_error"
    ), again


def _first_repeat(msgs: list[dict[str, Any]], times: int = 3) -> int | None:
    """Index (among the calls) of the `times`-th identical call in a row, or None."""
    keys = [json.dumps([c["name"], c["arguments"]], sort_keys=True) for c, _r in _answered(msgs)]
    for i in range(len(keys) - times + 1):
        if len(set(keys[i : i + times])) == 1:
            return i + times - 1
    return None


@pytest.mark.timeout(600)
async def test_the_loop_guard_stops_a_model_that_repeats_itself(local: Daemon) -> None:
    # A real model's output can still vary (a restarted server, another llama.cpp build): try a
    # few sessions until it repeats itself; when it does, the guard must act on it.
    endings = []
    for _attempt in range(3):
        sid, end = await _run(local, "nofence", "Read the file notes.txt.")
        msgs = _messages(local.home, sid)
        third = _first_repeat(msgs)
        if third is not None:
            break
        endings.append(end.get("errorCode") or end["type"])
    else:
        pytest.skip(
            f"the real model did not repeat a call in 3 sessions (they ended: {endings}); the "
            "guard's rules are tested with the scripted model in tests/e2e/test_loop_guard.py"
        )
    results = [r for _c, r in _answered(msgs)]
    # The third identical call's result tells the model once ...
    assert "[loop guard:" in results[third]["content"], results
    if end.get("errorCode") == "loop_detected":
        # ... and going on stops the run, the refused call answered as not run.
        assert end["type"] == "run_failed" and "loop detected" in end["error"], end
        assert results[-1]["content"].startswith("not run: loop detected"), results
    else:  # the model took the hint and changed course: the guard must not have stopped it
        assert not any(r["content"].startswith("not run: loop detected") for r in results), results
