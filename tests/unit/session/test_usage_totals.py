"""A session's usage totals: every request it paid for, a copy's inherited requests left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggd.session import SessionRepository


def _usage(prompt: int, cost: float | None) -> dict[str, object]:
    data: dict[str, object] = {
        "promptTokens": prompt,
        "completionTokens": 10,
        "totalTokens": prompt + 10,
        "cacheReadTokens": prompt // 2,
    }
    if cost is not None:
        data["costUsd"] = cost
    return data


def test_totals_sum_every_branch_and_a_fork_counts_only_its_own(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sf = repo.create("w1", name="s", model="p:m")
    first = sf.append("message", {"role": "user", "content": "a", "timestamp": 1}).id
    sf.append("usage", _usage(100, 0.5))
    sf.checkout(first)  # an abandoned branch's request was still paid for
    sf.append("usage", _usage(200, 0.25))
    row = repo.summary(sf.id)
    assert row.usage is not None
    assert row.usage["requests"] == 2 and row.usage["promptTokens"] == 300
    assert row.usage["cacheReadTokens"] == 150 and row.usage["costUsd"] == pytest.approx(0.75)
    fork = sf.clone()
    assert repo.summary(fork.id).usage is None  # the origin paid for those
    fork.append("usage", _usage(50, None))  # no price then: the total has no cost
    own = repo.summary(fork.id).usage
    assert own is not None and own["requests"] == 1 and own["costUsd"] is None


def test_a_request_in_the_same_millisecond_as_the_copy_is_the_copy_s_own(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path, clock=lambda: 1_000)  # every write in one millisecond
    sf = repo.create("w1")
    sf.append("message", {"role": "user", "content": "a", "timestamp": 1})
    sf.append("usage", _usage(100, 0.5))
    fork = sf.clone()
    assert fork.header.parent is not None and fork.header.parent["copied"] == 2
    fork.append("usage", _usage(7, 0.125))
    own = repo.summary(fork.id).usage
    assert own is not None and own["requests"] == 1 and own["promptTokens"] == 7
    child = repo.create("w1", parent={"kind": "child", "sessionId": sf.id})
    child.append("usage", _usage(3, None))  # a subagent's session copies nothing: all its own
    assert (repo.summary(child.id).usage or {}).get("requests") == 1
