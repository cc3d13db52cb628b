"""Incremental indexing, the lock, model recording and fail-closed search, on a real SQLite file."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from ggd.capabilities.kb import search as S
from ggd.capabilities.kb.index import index_folder, lock_for, remove_base
from ggd.capabilities.kb.store import KbError, KbNotFound, ModelMismatch, Store
from tests.fakes.fake_embeddings import embed


class CountingEmbedder:
    """The fake endpoint's vectors, in process, recording every text it is asked for."""

    def __init__(self, model: str = "fake-a", dim: int = 64) -> None:
        self.model = model
        self.dim = dim
        self.seen: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.seen.extend(texts)
        return [embed(t, self.dim) for t in texts]


def _docs(root: Path) -> None:
    (root / "a.md").write_text(
        "# Alpha\n\nThe alpha service stores invoices.\n\n## Retry\n\nIt retries three times.\n"
    )
    (root / "b.md").write_text("# Beta\n\nBeta renders charts from the invoices.\n")
    (root / "c.py").write_text(
        "def gamma():\n    '''Compute the gamma checksum.'''\n    return 3\n"
    )


def test_reindex_embeds_nothing_then_only_the_changed_file(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "docs"
    root.mkdir()
    _docs(root)
    e = CountingEmbedder()
    first = index_folder(home, "d", root, e)
    assert first.files == 3 and first.embedded == len(e.seen) > 0
    e.seen.clear()
    again = index_folder(home, "d", root, e)
    assert again.unchanged == 3 and again.changed == 0 and again.embedded == 0 and e.seen == []
    (root / "b.md").write_text("# Beta\n\nBeta renders graphs from the invoices.\n")
    third = index_folder(home, "d", root, e)
    assert third.changed == 1 and e.seen and all(t.startswith("b.md") for t in e.seen)
    st = Store(home, "d")
    try:
        hits, used = S.search(st, "graphs", 3, "hybrid", e)
        assert used == "hybrid" and hits[0].path == "b.md" and hits[0].heading == "Beta"
        assert (hits[0].start_line, hits[0].end_line) == (1, 3) and "graphs" in hits[0].snippet
        info = st.info()
        assert (info.files, info.model, info.dim) == (3, "fake-a", 64)
        assert info.vectors == info.chunks  # the old Beta vector left with its chunk
    finally:
        st.close()


def test_deleted_files_leave_the_index(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "docs"
    root.mkdir()
    _docs(root)
    index_folder(home, "d", root, None)
    (root / "c.py").unlink()
    s = index_folder(home, "d", root, None)
    assert s.deleted == 1
    st = Store(home, "d")
    try:
        assert S.search(st, "gamma checksum", 5, "bm25", None)[0] == []
        assert st.info().files == 2
    finally:
        st.close()


def test_files_are_owner_only(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "docs"
    root.mkdir()
    _docs(root)
    index_folder(home, "d", root, None)
    for p in (home / "kb", home / "kb" / "d"):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(home / "kb" / "d" / "index.sqlite").st_mode) == 0o600


def test_model_mismatch_fails_closed_at_query_and_at_index(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "docs"
    root.mkdir()
    _docs(root)
    index_folder(home, "d", root, CountingEmbedder("fake-a"))
    other = CountingEmbedder("fake-b")
    st = Store(home, "d")
    try:
        for mode in ("vector", "hybrid"):
            with pytest.raises(ModelMismatch, match="fake-a"):
                S.search(st, "invoices", 3, mode, other)
        assert other.seen == []  # not even the query was embedded with the wrong model
        with pytest.raises(ModelMismatch):
            S.search(st, "invoices", 3, "hybrid", None)
        assert S.search(st, "invoices", 3, "bm25", other)[0]  # BM25 needs no model
    finally:
        st.close()
    with pytest.raises(ModelMismatch, match="fake-b"):
        index_folder(home, "d", root, other)
    (root / "b.md").write_text("# Beta\n\nnew words to embed\n")
    with pytest.raises(ModelMismatch, match="dimension"):
        index_folder(home, "d", root, CountingEmbedder("fake-a", dim=32))


def test_a_bm25_base_gets_vectors_once_a_source_is_configured(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "docs"
    root.mkdir()
    _docs(root)
    index_folder(home, "d", root, None)
    st = Store(home, "d")
    try:
        assert S.search(st, "invoices", 3, "hybrid", None)[1] == "bm25"
        with pytest.raises(KbError, match="no vectors"):
            S.search(st, "invoices", 3, "vector", None)
    finally:
        st.close()
    e = CountingEmbedder()
    s = index_folder(home, "d", root, e)
    assert s.changed == 0 and s.embedded > 0  # the unchanged chunks got their vectors


def test_concurrent_indexers_serialize_on_the_lock(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "docs"
    root.mkdir()
    _docs(root)
    held = lock_for(home, "d")
    held.acquire()
    waiting = threading.Event()
    result: dict[str, Any] = {}

    def progress(p: dict[str, Any]) -> None:
        if p["phase"] == "waiting":
            waiting.set()
        result.setdefault("phases", []).append(p["phase"])

    t = threading.Thread(
        target=lambda: result.update(s=index_folder(home, "d", root, None, progress))
    )
    t.start()
    assert waiting.wait(10)
    assert result["phases"] == ["waiting"]  # nothing scanned while another indexer holds it
    held.release()
    t.join(30)
    assert result["s"].files == 3 and result["phases"][-1] == "done"


def test_names_roots_and_removal(tmp_path: Path) -> None:
    home, root, other = tmp_path / "home", tmp_path / "docs", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    _docs(root)
    with pytest.raises(KbError, match="name"):
        index_folder(home, "../x", root, None)
    index_folder(home, "d", root, None)
    with pytest.raises(KbError, match="another folder"):
        index_folder(home, "d", other, None)
    remove_base(home, "d")
    with pytest.raises(KbNotFound):
        Store(home, "d")
    with pytest.raises(KbNotFound):
        remove_base(home, "d")


def test_rrf_rewards_agreement() -> None:
    fused = S.rrf([[(1, 9.0), (2, 8.0), (3, 7.0)], [(3, 0.9), (4, 0.8), (1, 0.7)]], k=60)
    assert [cid for cid, _ in fused][:2] == [1, 3]


def test_fts_query_neutralises_syntax() -> None:
    assert S.fts_query('NEAR("a" OR b*) -c') == '"near" OR "a" OR "or" OR "b" OR "c"'


def test_a_snippet_is_plain_text_cut_between_words() -> None:
    from ggd.capabilities.kb.search import snippet

    words = " ".join(f"word{i}" for i in range(200))
    text = f"## Deploying\n\nSee **the [rollback guide](docs/rollback.md)** and `make deploy`.\n{words}"
    s = snippet(text, "rollback", width=80)
    assert "rollback guide" in s
    for markup in ("##", "**", "](", "`"):
        assert markup not in s
    assert s.endswith("…") and s.strip("…").split()[-1] in words.split()  # ends on a whole word
    mid = snippet(words, "word150", width=60).strip("…").split()
    assert mid and set(mid) <= set(words.split())  # no word cut in two
