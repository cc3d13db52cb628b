"""SteeringQueue keeps steering and follow-ups apart, oldest first."""

from __future__ import annotations

from ggd.agent import SteeringQueue


def test_drains_separately_and_in_order() -> None:
    q = SteeringQueue()
    q.push("a")
    q.push("later", follow_up=True)
    q.push("b")
    assert len(q) == 3
    assert q.drain_steering() == ["a", "b"]
    assert q.drain_steering() == []
    assert q.drain_follow_ups() == ["later"]
    assert len(q) == 0
