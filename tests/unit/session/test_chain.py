"""The chain index answers exactly what walking parentId links answers, for any tree."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ggd.session import Entry, SessionRepository
from ggd.session.chain import Chain, index
from ggd.session.codec import encode_line
from ggd.session.projection import path_to, tree_nodes

from .conftest import StepClock

# Each step: (parent choice, kind). Parent -1 = the previous entry (the common chain),
# -2 = a new root, n >= 0 = entry n mod len (a checkout or branch).
steps = st.lists(
    st.tuples(st.integers(-2, 50), st.sampled_from(["message", "message", "head", "usage"])),
    max_size=60,
)


def build(spec: list[tuple[int, str]]) -> list[Entry]:
    """Entries whose parents follow spec; every parent precedes its child."""
    out: list[Entry] = []
    for i, (choice, kind) in enumerate(spec):
        if choice == -2 or not out:
            parent = None
        elif choice == -1:
            parent = out[-1].id
        else:
            parent = out[choice % len(out)].id
        data = {"role": "user" if i % 2 else "assistant", "content": f"m{i}\nx" * (i % 4)}
        out.append(Entry(kind, f"{i:08x}", parent, 1000 + i, data))
    return out


def reference_tree(entries: list[Entry], active: set[str]) -> list[tuple[object, ...]]:
    """tree() from its definition: nearest message ancestor, depth counts message ancestors."""
    by_id = {e.id: e for e in entries}
    rows = []
    for e in entries:
        if e.kind != "message":
            continue
        anc, depth, p = None, 0, e.parent_id
        while p is not None:
            if by_id[p].kind == "message":
                anc = anc or p
                depth += 1
            p = by_id[p].parent_id
        text = " ".join(str(e.data["content"]).split())
        rows.append((e.id, anc, depth, e.data["role"], text, e.id in active, e.timestamp))
    return rows


@settings(max_examples=200, deadline=None)
@given(steps, st.integers(0, 20))
def test_chain_path_and_flags_match_walking_parent_links(spec, split) -> None:
    entries = build(spec)
    head = entries[: min(split, len(entries))]
    indexed = index(head)
    assert indexed is not None
    by_id, chain = indexed
    assert by_id == {e.id: e for e in head}
    # Appends after the open keep the chain exact (some after a jump was resolved).
    grown = list(head)
    chain.path(grown, len(grown) - 1)
    for e in entries[len(head) :]:
        grown.append(e)
        by_id[e.id] = e
        chain.extend(grown, len(grown) - 1)
        chain.path(grown, len(grown) - 1)
    for end in range(-1, len(grown)):
        node = grown[end].id if end >= 0 else None
        expected = path_to(by_id, node)
        assert chain.path(grown, end) == expected
        flags = chain.active_flags(grown, end)
        assert [e.id for e, on in zip(grown, flags, strict=True) if on] == sorted(
            e.id for e in expected
        )
    active = {e.id for e in path_to(by_id, grown[-1].id if grown else None)}
    got = [
        (n.id, n.parent_id, n.depth, n.role, n.text, n.active, n.timestamp)
        for n in tree_nodes(grown, chain.active_flags(grown, len(grown) - 1), chain.targets(grown))
    ]
    assert got == reference_tree(grown, active)


def test_index_refuses_a_late_parent_a_repeated_id_and_a_first_entry_with_a_parent() -> None:
    a = Entry("message", "aaaaaaaa", None, 1, {})
    b = Entry("message", "bbbbbbbb", "aaaaaaaa", 2, {})
    c_late = Entry("message", "cccccccc", "dddddddd", 3, {})
    d = Entry("message", "dddddddd", "bbbbbbbb", 4, {})
    assert index([a, b, c_late, d]) is None
    assert index([a, b, Entry("message", "aaaaaaaa", "bbbbbbbb", 3, {})]) is None
    assert index([b]) is None
    self_parent = Entry("message", "cccccccc", "cccccccc", 3, {})
    assert index([a, self_parent]) is None
    ok = index([a, b, Entry("head", "cccccccc", None, 3, {}), d])
    assert ok is not None and isinstance(ok[1], Chain) and ok[1].breaks == [0, 2, 3]


def test_a_file_with_a_late_parent_is_reported_at_its_line(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path / "s", clock=StepClock())
    sf = repo.create("w")
    lines = [
        {"type": "message", "id": "aaaaaaaa", "parentId": None, "timestamp": 1, "data": {}},
        {"type": "message", "id": "bbbbbbbb", "parentId": "cccccccc", "timestamp": 2, "data": {}},
        {"type": "message", "id": "cccccccc", "parentId": "aaaaaaaa", "timestamp": 3, "data": {}},
    ]
    with open(repo.root / f"{sf.id}.jsonl", "ab") as f:
        f.write(b"".join(encode_line(o) for o in lines))
    opened = repo.open(sf.id)  # opens: the late-parented entry is attached to the one before
    assert [(e.id, e.parent_id) for e in opened.entries] == [
        ("aaaaaaaa", None),
        ("bbbbbbbb", "aaaaaaaa"),
        ("cccccccc", "aaaaaaaa"),
    ]
    assert repo.summary(sf.id).damaged
