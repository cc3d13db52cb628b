"""Property: any sequence of appends, checkouts, forks and clones re-opens to the same tree."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggd.session import SessionFile, SessionRepository

from .conftest import StepClock

# Any text, including lone surrogates and control characters, must survive the codec.
texts = st.text(alphabet=st.characters(exclude_categories=()), max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)

ops = st.lists(
    st.one_of(
        st.tuples(st.just("message"), st.sampled_from(["user", "assistant", "tool"]), texts),
        st.tuples(st.just("usage"), st.dictionaries(texts, json_values, max_size=3)),
        st.tuples(
            st.just("branch"), st.integers(0, 1000), st.sampled_from(["user", "assistant"]), texts
        ),
        st.tuples(st.just("checkout"), st.integers(0, 1000)),
        st.tuples(st.just("rename"), texts),
        st.tuples(st.just("fork"), st.integers(0, 1000)),
        st.tuples(st.just("clone")),
        st.tuples(st.just("switch"), st.integers(0, 1000)),
    ),
    max_size=25,
)


@dataclass
class Model:
    """An independent in-memory account of what one session file must contain."""

    entries: list[tuple[str, str, str | None, dict[str, Any]]] = field(default_factory=list)
    name: str | None = None

    def path(self, node: str | None) -> list[tuple[str, str, str | None, dict[str, Any]]]:
        by_id = {e[1]: e for e in self.entries}
        out = []
        while node is not None:
            out.append(by_id[node])
            node = by_id[node][2]
        return out[::-1]

    def copy_of(self, node: str | None) -> Model:
        kept: list[tuple[str, str, str | None, dict[str, Any]]] = []
        last: str | None = None
        for kind, eid, _, data in self.path(node):
            if kind in ("head", "session_info", "model"):
                continue
            kept.append((kind, eid, last, data))
            last = eid
        return Model(kept, self.name)


def check(sf: SessionFile, model: Model, repo: SessionRepository) -> None:
    assert [(e.kind, e.id, e.parent_id, e.data) for e in sf.entries] == model.entries
    leaf = model.entries[-1][1] if model.entries else None
    assert sf.leaf_id == leaf
    active = [e[1] for e in model.path(leaf)]
    assert [e.id for e in sf.active_path()] == active
    assert sf.messages() == [e[3] for e in model.path(leaf) if e[0] == "message"]
    assert sf.name == model.name
    again = repo.open(sf.id)
    assert again.entries == sf.entries and again.header == sf.header
    assert again.leaf_id == sf.leaf_id
    assert [e.id for e in again.active_path()] == active
    assert again.messages() == sf.messages()
    assert again.tree() == sf.tree()
    assert {n.id for n in again.tree() if n.active} == {
        e[1] for e in model.path(leaf) if e[0] == "message"
    }
    assert (again.name, again.model, again.message_count, again.preview) == (
        sf.name,
        sf.model,
        sf.message_count,
        sf.preview,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=ops)
def test_any_operation_sequence_round_trips_through_the_files(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = SessionRepository(Path(tmp) / "sessions", clock=StepClock())
        sessions: list[tuple[SessionFile, Model]] = [
            (repo.create("ws", name="start"), Model(name="start"))
        ]
        cur = 0
        for op in ops:
            sf, model = sessions[cur]
            ids = [e[1] for e in model.entries]
            kind = op[0]
            if kind == "message":
                data = {"role": op[1], "content": op[2]}
                e = sf.append("message", data)
                model.entries.append(("message", e.id, e.parent_id, data))
            elif kind == "usage":
                e = sf.append("usage", op[1])
                model.entries.append(("usage", e.id, e.parent_id, op[1]))
            elif kind == "branch" and ids:
                parent = ids[op[1] % len(ids)]
                data = {"role": op[2], "content": op[3]}
                e = sf.append("message", data, parent_id=parent)
                assert e.parent_id == parent
                model.entries.append(("message", e.id, parent, data))
            elif kind == "checkout":
                node = ([*ids, None])[op[1] % (len(ids) + 1)]  # None: before the first entry
                e = sf.checkout(node)
                model.entries.append(("head", e.id, node, {}))
            elif kind == "rename":
                e = sf.rename(op[1])
                model.entries.append(("session_info", e.id, e.parent_id, {"name": op[1]}))
                model.name = op[1]
            elif kind == "fork":
                node = ([*ids, None])[op[1] % (len(ids) + 1)]
                new = sf.fork(node)
                copy = model.copy_of(node)
                assert new.header.parent == {
                    "sessionId": sf.id,
                    "nodeId": node,
                    "kind": "fork",
                    "copied": len(copy.entries),
                }
                sessions.append((new, copy))
            elif kind == "clone":
                new = sf.clone()
                copy = model.copy_of(sf.leaf_id)
                assert new.header.parent == {
                    "sessionId": sf.id,
                    "nodeId": sf.leaf_id,
                    "kind": "clone",
                    "copied": len(copy.entries),
                }
                sessions.append((new, copy))
            elif kind == "switch":
                cur = op[1] % len(sessions)
        for sf, model in sessions:
            check(sf, model, repo)
        listed = {s.id: s for s in repo.list(limit=1000)[0]}
        assert set(listed) == {sf.id for sf, _ in sessions}
        for sf, _ in sessions:
            assert listed[sf.id].message_count == sf.message_count
            assert listed[sf.id].name == sf.name
