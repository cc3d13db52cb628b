"""Helpers for run tests: start a run and collect its events until it ends."""

from __future__ import annotations

from typing import Any

from .rpc_client import RpcClient

TERMINAL = ("run_completed", "run_failed", "run_canceled")


async def new_session(c: RpcClient) -> str:
    """Create a session and return its id."""
    return str((await c.request("gg/session.create", {}))["sessionId"])


async def start(c: RpcClient, sid: str, prompt: str, **params: Any) -> str:
    """Start a run and return its id."""
    res = await c.request("gg/run.start", {"sessionId": sid, "prompt": prompt, **params})
    return str(res["runId"])


async def until(
    c: RpcClient, run_id: str, type_: str, timeout: float = 20, after: int = 0
) -> dict[str, Any]:
    """The first event of a type (after a sequence) for a run."""
    return await c.wait_for(
        "gg/run.event",
        lambda p: p["runId"] == run_id and p["type"] == type_ and p["sequence"] > after,
        timeout,
    )


async def finish(c: RpcClient, run_id: str, timeout: float = 30) -> dict[str, Any]:
    """The terminal event of a run."""
    return await c.wait_for(
        "gg/run.event", lambda p: p["runId"] == run_id and p["type"] in TERMINAL, timeout
    )


def types(
    c: RpcClient, run_id: str, skip: tuple[str, ...] = ("text_delta", "usage", "thinking_delta")
) -> list[str]:
    """The run's event types in order, without the chatty ones."""
    return [e["type"] for e in c.events(run_id=run_id) if e["type"] not in skip]


def assert_sequence_ok(c: RpcClient, run_id: str) -> None:
    """Sequences start at 1 and have no gaps or repeats."""
    seqs = [e["sequence"] for e in c.events(run_id=run_id)]
    assert seqs == list(range(1, len(seqs) + 1)), seqs


def finished_tools(c: RpcClient, run_id: str) -> dict[str, dict[str, Any]]:
    """The run's tool_call_finish events by toolCallId."""
    return {e["toolCallId"]: e for e in c.events(run_id=run_id) if e["type"] == "tool_call_finish"}
