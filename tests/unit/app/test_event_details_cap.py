"""Tool details on the wire are bounded whatever their shape (issue 30: a 10 MB structuredContent)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ggd.agent import ToolCallFinishEvent
from ggd.app.events import DETAILS_LIMIT, to_wire


def _details(value: dict[str, Any]) -> dict[str, Any]:
    ev = ToolCallFinishEvent(
        tool_call_id="c1", tool_name="t", is_error=False, output="ok", details=value
    )
    _cls, fields = to_wire(ev)
    out = fields["details"]
    assert isinstance(out, dict)
    return out


def test_small_details_pass_unchanged() -> None:
    value = {"server": "s", "structuredContent": {"a": [1, 2, 3], "b": "x" * 1000}}
    assert _details(value) == value


@pytest.mark.parametrize(
    "big",
    [
        {"s": "\u0001" * 200_000},  # escapes: six characters each when encoded
        {"rows": [{"i": i, "t": "é" * 50} for i in range(50_000)]},
        {f"k{i}": i for i in range(100_000)},
        {"many": [[["x" * 10] * 100] * 100] * 10},
    ],
)
def test_large_details_are_cut_to_the_limit_with_a_marker(big: dict[str, Any]) -> None:
    size = len(json.dumps(big, ensure_ascii=False))
    out = _details({"server": "s", **big})
    encoded = json.dumps(out, ensure_ascii=False)
    assert len(encoded) <= DETAILS_LIMIT, len(encoded)
    assert out["truncated"] == {"chars": size + len('"server": "s", '), "limit": DETAILS_LIMIT}
    assert len(encoded) > DETAILS_LIMIT // 2  # cut to the limit, not far below it
    assert out["server"] == "s"
    assert "cut]" in encoded


def test_deep_details_are_cut_below_a_depth_without_recursing_through_them() -> None:
    deep = json.loads("[" * 500 + json.dumps("x" * 100_000) + "]" * 500)
    out = _details({"deep": deep})
    assert len(json.dumps(out)) < 1000 and "[... list cut]" in json.dumps(out)
