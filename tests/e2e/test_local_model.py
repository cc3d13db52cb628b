"""A real model through a real ggd: kind "llamacpp" serving SmolLM2-135M with llama.cpp's server.

`make local-models` installs xllamacpp and caches the GGUF (tests/local_models/fetch.py); without
them every test here skips and says why. One daemon (and so one llama.cpp server, whose prompt
cache keeps gg's ~2.5k-token prompt of instructions and tools between runs) serves the whole
module. Each test picks a model name of the one provider, and `modelParams` gives each name its
own request parameters.

Assertions are about structure (a call parsed, executed, its result sent back under its id; the
file's word in the final answer), never about the wording of a 135M model, which runs at
temperature 0 with a fixed seed and one thread.

The group covers every check issue 36 asks for: a forced call, two parallel calls in one answer,
a task answered from a file's content in one run with toolChoice "auto", the loop guard, the
server killed mid-stream, and the same task through `gg --model local:... -p` (the CLI's path). SmolLM2-135M does the first three only with help, all of it real and
user-visible: prompts that spell out the calls to make (it copies them reliably; it does not plan
under gg's ~2.5k-token prompt of instructions and tool schemas), and per-name `logit_bias` that
makes it start with the call instead of prose or a "```json" fence. After a tool result
chatml-tools asks for the answer in words, which is what lets it answer from the file. The
checks run in file order on purpose: see CLI_TASK.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
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
# Prompts spell a call out: a 135M model copies it reliably, and the checks are about gg's path.
READ_NOTES = 'Call {"name": "read", "arguments": {"path": "notes.txt"}}'
# How llama.cpp holds a model to calls under chatml-tools (bare JSON calls, no start marker): with
# toolChoice "required" a grammar makes the answer end in a call but lets any text come before its
# "{"; with "auto" nothing is enforced and the answer must parse as text or text + one call. This
# 135M model likes to open a "```json" fence or write prose first and run out of tokens in it, so
# every name below bans "```", and most favour "{" (a logit bias: the model still picks each call).
ONE_CALL = {
    "toolChoice": "required",
    "extraBody": {"parallel_tool_calls": False, "logit_bias": [["```", False]]},
}
# Two calls in one answer. The model copies the two calls its prompt spells out (what is checked
# is gg's path, not the model's planning); "{" is favoured so it starts with a call instead of
# prose, and <|im_end|> (token 2) is slightly disfavoured: after the first call it ends the answer
# about as readily as it goes on, after the second it keeps adding calls unless the answer may
# end. -0.25 sits in the middle of the range (0 to -0.5) where it stops after exactly two.
TWO_CALLS = {
    "toolChoice": "required",
    "extraBody": {
        "parallel_tool_calls": True,
        "logit_bias": [["```", False], ["{", 3], [2, -0.25]],
    },
}
# A task in one run with toolChoice "auto": nothing forces a call, so "{" is favoured enough that
# the first answer opens one (it also does at +2, not at 0) but not so much that the answer after
# the tool result, which chatml-tools asks for in words, starts with "{" too.
TASK = {
    "toolChoice": "auto",
    "extraBody": {"parallel_tool_calls": False, "logit_bias": [["```", False], ["{", 3]]},
}
# The same task through `gg -p`, last in the module, with "{" at +2. A 135M model at temperature 0
# still follows near-ties that the server's prompt cache moves (what ran before changes how the
# rest of a prompt is batched): run first or after the task test, with TASK's +3 (and +4 to +6),
# its answer after the read mixed prose and a call, which llama.cpp refuses under "auto". So each
# check keeps its place in the module and its own parameters.
CLI_TASK = {
    "toolChoice": "auto",
    "extraBody": {"parallel_tool_calls": False, "logit_bias": [["```", False], ["{", 2]]},
}
# A model that repeats itself, for the loop guard: each answer must be a call and, "{" favoured
# strongly (it repeats at +5 and +8), starts with it instead of the words chatml-tools asks for
# after a result.
LOOPING = {
    "toolChoice": "required",
    "extraBody": {"parallel_tool_calls": False, "logit_bias": [["```", False], ["{", 5]]},
}
MODEL_PARAMS = {
    "forced": ONE_CALL,
    "two": TWO_CALLS,
    "task": TASK,
    "loop": LOOPING,
    "talk": {"toolChoice": "none", "maxTokens": 400},
    "cli": CLI_TASK,
}


# gg's system prompt names the workspace's path, and the 135M model at temperature 0 follows
# near-ties that any change of its prompt moves: under pytest's numbered temp folders a check
# passed or failed with the run's number. One path for every run (per user, held under a lock
# while the module runs) makes the group reproducible.
FIXED_ROOT = Path(tempfile.gettempdir()) / f"gg-real-model-{os.getuid()}"


@pytest.fixture(scope="module")
def local() -> Iterator[Daemon]:
    """One ggd whose default model is the local SmolLM2 (the server starts on first use)."""
    FIXED_ROOT.mkdir(mode=0o700, exist_ok=True)
    with (FIXED_ROOT / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second run of the module waits for this one
        root = FIXED_ROOT / "run"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        d = _start_local(root)
        try:
            yield d
        finally:
            d.stop()
            shutil.rmtree(root, ignore_errors=True)


def _start_local(root: Path) -> Daemon:
    home, ws = root / "home", root / "project"
    home.mkdir(mode=0o700)
    ws.mkdir()
    (ws / "notes.txt").write_text(NOTES)
    (ws / "todo.txt").write_text("1. water the plants\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('hi')\n")
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
    return Daemon(home, ws, daemon_env(home)).start()


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


@pytest.mark.timeout(420)
async def test_two_parallel_calls_are_both_run_and_answered_under_their_own_ids(
    local: Daemon,
) -> None:
    prompt = (
        'Make two calls: {"name": "read", "arguments": {"path": "notes.txt"}}, '
        '{"name": "list", "arguments": {"path": "src"}}'
    )
    sid, end = await _run(local, "two", prompt)
    assert end.get("errorCode") != "server_error", end
    msgs = _messages(local.home, sid)
    first = next(m for m in msgs if m["role"] == "assistant" and m.get("toolCalls"))
    calls = first["toolCalls"]
    assert len(calls) >= 2, f"not parallel: {msgs}"
    assert len({c["id"] for c in calls}) == len(calls), calls
    # Each call was run and its own result recorded under its id (in the order they finished),
    # right after the answer that made them.
    at = msgs.index(first)
    results = msgs[at + 1 : at + 1 + len(calls)]
    assert [r["role"] for r in results] == ["tool"] * len(calls), msgs
    assert sorted(r["toolCallId"] for r in results) == sorted(c["id"] for c in calls), results
    # And its own output, not a sibling's (for the calls the prompt spelled out; the model may
    # add arguments such as a read limit, or change one call).
    by_id = {c["id"]: c for c in calls}
    own = {("read", "notes.txt"): "PINEAPPLE", ("list", "src"): "app.py"}
    checked = 0
    for r in results:
        call = by_id[r["toolCallId"]]
        expect = own.get((call["name"], call["arguments"].get("path")))
        if expect is not None:
            assert expect in r["content"], (call, r)
            checked += 1
    assert checked, f"neither spelled-out call was made: {calls}"
    # Both results went back: the model was asked again after them.
    assert any(m["role"] == "assistant" for m in msgs[at + 1 + len(calls) :]), msgs


@pytest.mark.timeout(420)
async def test_a_task_is_answered_from_the_content_of_a_file_it_read(local: Daemon) -> None:
    # The secret word is only in notes.txt: not in the prompt, gg's system prompt or tools.
    word = NOTES.split()[-1].rstrip(".")
    prompt = (
        'Call {"name": "read", "arguments": {"path": "notes.txt"}} and tell me the secret word.'
    )
    assert word not in prompt
    sid, end = await _run(local, "task", prompt)
    assert end["type"] == "run_completed", end
    msgs = _answered_and_sent(local, sid)
    reads = [(c, r) for c, r in _answered(msgs) if c["name"] == "read"]
    assert reads and any(word in r["content"] for _c, r in reads), msgs
    # The model saw the word only in a tool result; its final answer, after it, names it.
    final = msgs[-1]
    assert final["role"] == "assistant" and not final.get("toolCalls"), msgs
    assert msgs.index(final) > msgs.index(reads[0][1])
    assert word in final["content"], final
    assert word in end["content"]


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
        sid, end = await _run(local, "loop", READ_NOTES)
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


@pytest.mark.timeout(420)
def test_gg_p_with_the_local_model_reads_the_file_and_prints_its_word(local: Daemon) -> None:
    # What a user with only a GGUF file does: `gg --model local:NAME -p ...` in the workspace,
    # offline (the CLI finds the running daemon of its GG_HOME, as it would the one it starts).
    word = NOTES.split()[-1].rstrip(".")
    prompt = (
        'Call {"name": "read", "arguments": {"path": "notes.txt"}} and tell me the secret word.'
    )
    env = {**local.env, "NO_COLOR": "1", "HOME": str(local.home.parent)}
    out = subprocess.run(
        [str(Path(sys.executable).parent / "gg"), "--model", "local:cli", "-p", prompt],
        cwd=local.workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert out.returncode == 0, (out.stdout, out.stderr)
    assert word in out.stdout, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    # The word came through a real call: the CLI's session (the newest) read the file.
    newest = max((local.home / "sessions").glob("*.jsonl"), key=lambda f: f.stat().st_mtime)
    reads = [
        (c, r) for c, r in _answered(_messages(local.home, newest.stem)) if c["name"] == "read"
    ]
    assert any(word in r["content"] for _c, r in reads), (newest, out.stdout)
