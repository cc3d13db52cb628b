"""Recall on a real corpus nobody here wrote: the docs inside the playwright wheel, offline MiniLM.

Guards the figures in docs/kb.md: hybrid must stay at least as good as the better of BM25 and
vector (recall@5), and none may collapse.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ggd.capabilities.kb.cli import load_cases, score
from ggd.capabilities.kb.minilm import local_model_reason

CASES = Path(__file__).resolve().parents[3] / "data" / "kb_cases.jsonl"


def _corpus() -> Path | None:
    spec = importlib.util.find_spec("playwright")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent / "driver" / "package" / "lib" / "tools" / "skills"
    return root if root.is_dir() else None


@pytest.mark.skipif(local_model_reason() is not None, reason="kb-local not installed")
@pytest.mark.skipif(_corpus() is None, reason="this playwright wheel ships no skills docs")
def test_hybrid_recall_is_at_least_the_better_of_bm25_and_vector(tmp_path: Path) -> None:
    from ggd.capabilities.kb import search as S
    from ggd.capabilities.kb.embed import LocalEmbedder
    from ggd.capabilities.kb.index import index_folder
    from ggd.capabilities.kb.store import Store

    root = _corpus()
    assert root is not None
    emb = LocalEmbedder(tmp_path)
    index_folder(tmp_path, "pw", root, emb)
    cases = load_cases(CASES)
    assert len(cases) >= 40
    st = Store(tmp_path, "pw")
    try:
        got = {}
        for mode in ("bm25", "vector", "hybrid"):
            ranked = []
            for c in cases:
                hits, used = S.search(st, c["query"], 10, mode, emb)
                assert used == mode
                ranked.append([{"path": h.path, "heading": h.heading} for h in hits])
            got[mode] = score(cases, ranked, 5)["recall"]
    finally:
        st.close()
    assert got["hybrid"] >= max(got["bm25"], got["vector"]), got
    assert min(got.values()) >= 0.85, got
