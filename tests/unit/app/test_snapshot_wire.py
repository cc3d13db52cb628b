"""The snapshot built straight into wire form equals the pydantic model path, byte for byte."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from ggd.app.service import Service
from ggd.app.snapshot import message_wire, tree_rows
from ggd.app.workspaces import Workspace
from ggd.protocol import SessionUpdate, Snapshot
from ggd.session import SessionRepository

# Both encoders a result meets on its way out: pygls' json.dumps and gg's compact one.
_ENCODINGS = ({}, {"ensure_ascii": False, "separators": (",", ":")})


def _service(repo: SessionRepository, sid: str) -> Service:
    return Service(repo.open(sid), Workspace("w1", "ws ☃", Path(".")))


def _same(svc: Service, cls: type[Snapshot] = Snapshot, **extra: Any) -> dict[str, Any]:
    fast = svc.snapshot_view(cls, **extra).data
    slow = svc.snapshot(cls, **extra).wire()
    for opts in _ENCODINGS:
        assert json.dumps(fast, **opts) == json.dumps(slow, **opts)  # type: ignore[arg-type]
    return fast


def _raw(repo: SessionRepository, sid: str, lines: list[str]) -> None:
    """Append hand-written entry lines (values gg itself never writes) to a session file."""
    with open(repo.root / f"{sid}.jsonl", "a", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))


def _line(eid: str, parent: str | None, data: str, kind: str = "message") -> str:
    pid = "null" if parent is None else f'"{parent}"'
    return f'{{"type":"{kind}","id":"{eid}","parentId":{pid},"timestamp":5,"data":{data}}}'


def test_a_branchy_session_with_tools_summaries_and_unicode(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sf = repo.create("w1", name="naïve ☃ name", model="demo:m")
    rng = random.Random(3)
    ids: list[str] = []
    for i in range(300):
        if i and i % 37 == 0:
            sf.checkout(rng.choice(ids))  # a new branch from an earlier entry
        role = ("user", "assistant", "tool")[i % 3]
        msg: dict[str, Any] = {"role": role, "timestamp": 1_700_000_000_000 + i}
        if role == "user":
            msg["content"] = f"line {i}\n\ttabs, émoji 🚀 and a long tail " + "z" * (i % 200)
        elif role == "assistant":
            msg["content"] = None if i % 2 else ""
            msg["toolCalls"] = [
                {"id": f"c{i}", "name": "read", "arguments": {"path": "a.py", "n": i, "x": None}},
                {"id": f"d{i}", "name": "bash", "arguments": {"argv": ["ls", 1.5, True, {}]}},
            ]
            msg["stopReason"] = "tool_use"
            msg["usage"] = {"promptTokens": 3}  # a stored key the wire does not carry
            if i % 4 == 1:  # reasoning is shown; the replay data for the API is not
                msg["thinking"] = f"thought {i} ☃"
                msg["replay"] = {"kind": "anthropic", "thinking": [{"signature": "s"}]}
        else:
            msg.update(toolCallId=f"c{i - 1}", toolName="read", content="ok", isError=i % 2 == 0)
        if i % 50 == 7:
            msg["error"] = "boom"
            msg["stopReason"] = "error"
        ids.append(sf.append("message", msg).id)
        # non-message entries are branch points too (their nodes hang on the message above)
        if i % 90 == 10:
            ids.append(sf.append("summary", {"summary": f"summary at {i}"}).id)
        if i % 60 == 20:
            ids.append(sf.rename(f"renamed {i}").id)
    svc = _service(repo, sf.id)
    # every message here is plain: the comparison exercises the fast path, not its fallback
    assert all(message_wire(e.id, e.data) for e in svc.file.active_path() if e.kind == "message")
    assert svc.file.tree_with(tree_rows) is not None
    out = _same(svc)
    assert len(out["tree"]) == 300 and any("parentId" not in t for t in out["tree"])
    assert any(m.get("toolCalls") for m in out["messages"])
    assert any(m.get("thinking") for m in out["messages"])
    assert not any("replay" in m for m in out["messages"])
    svc = _service(repo, sf.id)
    svc.active_run_id = "r_1"
    _same(svc, SessionUpdate, action="fork", draft="d ☃", notice=None)
    _same(svc, SessionUpdate)


def test_an_empty_session(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sf = repo.create("w1")
    assert _same(_service(repo, sf.id))["messages"] == []


def test_values_the_models_coerce_take_the_model_path(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sf = repo.create("w1")
    datas = [
        '{"role":"user","content":"no timestamp"}',
        '{"role":"user","content":"bool ts","timestamp":true}',
        '{"role":"user","content":"str ts","timestamp":"12"}',
        '{"role":"user","content":"float ts","timestamp":3.0}',
        '{"role":"user","content":"huge ts","timestamp":123456789012345678901234567890}',
        '{"role":"tool","content":"int isError","isError":1,"timestamp":1}',
        '{"role":"tool","content":"str isError","isError":"true","timestamp":1}',
        '{"role":"user","content":"lone \\ud800 surrogate","timestamp":1}',
        '{"role":"assistant","toolCalls":[{"id":"a","name":"b","arguments":{"v":1e400}}],'
        '"timestamp":1}',
        '{"role":"assistant","toolCalls":[{"id":"a","name":"b","arguments":{"v":NaN}}],'
        '"timestamp":1}',
        '{"role":"assistant","toolCalls":[{"id":"a","name":"b","extra":1}],"timestamp":1}',
        '{"role":"assistant","toolCalls":[],"timestamp":1}',
        '{"role":"user","content":"snake keys ignored","tool_name":"x","id":"forged","timestamp":1}',
    ]
    lines, parent = [], None
    for i, data in enumerate(datas):
        lines.append(_line(f"e{i}", parent, data))
        parent = f"e{i}"
    lines.append(_line("s1", parent, '{"summary":null}', kind="summary"))
    _raw(repo, sf.id, lines)
    svc = _service(repo, sf.id)
    plain = [message_wire(e.id, e.data) is not None for e in svc.file.entries][: len(datas)]
    # coerced values and non-finite floats take the fallback, which is then what is compared
    assert plain == [True] + [False] * 6 + [True, False, False] + [True] * 3
    out = _same(svc)
    assert len(out["messages"]) == len(datas)
    assert out["messages"][0]["timestamp"] == 0 and out["summary"] == ""


@pytest.mark.parametrize(
    "data",
    [
        '{"role":"robot","content":"x","timestamp":1}',
        '{"role":"user","content":["a list"],"timestamp":1}',
        '{"role":"user","content":7,"timestamp":1}',
        '{"role":"assistant","stopReason":"bored","timestamp":1}',
        '{"role":"assistant","toolCalls":[{"id":"a","name":"b","arguments":null}],"timestamp":1}',
        '{"role":"assistant","toolCalls":"nope","timestamp":1}',
        '{"content":"no role","timestamp":1}',
    ],
)
def test_a_message_the_models_refuse_fails_the_same_way(tmp_path: Path, data: str) -> None:
    repo = SessionRepository(tmp_path)
    sf = repo.create("w1")
    _raw(repo, sf.id, [_line("e0", None, '{"role":"user","content":"ok","timestamp":1}')])
    _raw(repo, sf.id, [_line("e1", "e0", data)])
    svc = _service(repo, sf.id)
    with pytest.raises(ValidationError) as slow:
        svc.snapshot(Snapshot)
    with pytest.raises(ValidationError) as fast:
        svc.snapshot_view(Snapshot)
    assert fast.value.errors() == slow.value.errors()
