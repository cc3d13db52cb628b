"""Ranking: FTS5 BM25, brute-force cosine over the float32 vectors, and reciprocal rank fusion."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any, Literal

from .embed import Embedder
from .store import KbError, ModelMismatch, Store

Mode = Literal["bm25", "vector", "hybrid"]
RRF_K = 60
DEPTH = 50
_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass
class Hit:
    """One result: where it is and why it matched."""

    path: str
    heading: str
    start_line: int
    end_line: int
    snippet: str
    score: float
    chunk_id: int


def fts_query(text: str) -> str:
    """The user's words as an FTS5 OR query of quoted terms (no FTS syntax gets through)."""
    terms = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(text)))
    return " OR ".join(f'"{t}"' for t in terms[:64])


def bm25(st: Store, query: str, depth: int) -> list[tuple[int, float]]:
    """(chunk id, score) best first; higher is better."""
    q = fts_query(query)
    if not q:
        return []
    rows = st.db.execute(
        "SELECT rowid, bm25(chunks_fts, 1.0, 2.0, 1.0) AS s FROM chunks_fts "
        "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
        (q, depth),
    ).fetchall()
    return [(int(r), -float(s)) for r, s in rows]


class _Matrix:
    """The base's vectors as one (n, dim) array, reloaded when the generation moves."""

    def __init__(self, generation: int, ids: Any, mat: Any) -> None:
        self.generation = generation
        self.ids = ids
        self.mat = mat


_cache: dict[str, _Matrix] = {}
_cache_lock = threading.Lock()


def _matrix(st: Store) -> _Matrix:
    import numpy as np

    key = str(st.path)
    gen = st.generation
    with _cache_lock:
        m = _cache.get(key)
        if m is not None and m.generation == gen:
            return m
    rows = st.db.execute(
        "SELECT c.id, v.vec FROM chunks c JOIN vectors v ON v.hash = c.hash ORDER BY c.id"
    ).fetchall()
    dim = st.dim
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    mat = mat.reshape(len(rows), dim) if dim else mat.reshape(0, 0)
    m = _Matrix(gen, ids, mat)
    with _cache_lock:
        _cache[key] = m
    return m


def forget(path: str) -> None:
    """Drop a removed base's cached matrix."""
    with _cache_lock:
        _cache.pop(path, None)


def check_model(st: Store, embedder: Embedder | None) -> None:
    """Fail closed when the query would be embedded by another model than the index's."""
    if not st.model:
        return
    if embedder is None:
        raise ModelMismatch(
            f"knowledge base '{st.name}' holds {st.model} vectors but no embedding source is "
            "configured; configure it again or search with mode bm25"
        )
    if embedder.model != st.model:
        raise ModelMismatch(
            f"knowledge base '{st.name}' was built with {st.model}, the configured source is "
            f"{embedder.model}; vectors of different models cannot be compared (re-index it, "
            "or search with mode bm25)"
        )


def vector(st: Store, qvec: Any, depth: int) -> list[tuple[int, float]]:
    """(chunk id, cosine) best first."""
    import numpy as np

    m = _matrix(st)
    if not len(m.ids):
        return []
    q = np.asarray(qvec, dtype=np.float32).reshape(-1)
    if q.shape[0] != m.mat.shape[1]:
        raise ModelMismatch(
            f"the query vector has dimension {q.shape[0]}, the index holds {m.mat.shape[1]}"
        )
    q = q / max(float(np.linalg.norm(q)), 1e-12)
    scores = m.mat @ q
    k = min(depth, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top])]
    return [(int(m.ids[i]), float(scores[i])) for i in top]


def rrf(lists: list[list[tuple[int, float]]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal rank fusion: sum of 1 / (k + rank) over the lists a chunk appears in."""
    fused: dict[int, float] = {}
    for hits in lists:
        for rank, (cid, _s) in enumerate(hits, 1):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda x: -x[1])


def search(
    st: Store,
    query: str,
    top_k: int,
    mode: Mode,
    embedder: Embedder | None,
    depth: int = DEPTH,
    rrf_k: int = RRF_K,
) -> tuple[list[Hit], Mode]:
    """The top_k hits and the mode actually used (hybrid on a BM25-only base is bm25)."""
    if not query.strip():
        raise KbError("the query is empty")
    used: Mode = mode
    if mode != "bm25" and not st.model:
        if mode == "vector":
            raise KbError(
                f"knowledge base '{st.name}' has no vectors (it was indexed without an "
                "embedding source); search with mode bm25 or hybrid"
            )
        used = "bm25"
    if used == "bm25":
        ranked = bm25(st, query, max(depth, top_k))
    else:
        check_model(st, embedder)
        assert embedder is not None
        qvec = embedder.embed([query])[0]
        vec = vector(st, qvec, max(depth, top_k))
        ranked = vec if used == "vector" else rrf([bm25(st, query, depth), vec], rrf_k)
    return _hits(st, ranked[:top_k], query), used


def _hits(st: Store, ranked: list[tuple[int, float]], query: str) -> list[Hit]:
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    rows = {
        r[0]: r
        for r in st.db.execute(
            f"SELECT id, path, heading, start_line, end_line, text FROM chunks WHERE id IN ({marks})",
            [cid for cid, _ in ranked],
        )
    }
    out: list[Hit] = []
    for cid, score in ranked:
        r = rows.get(cid)
        if r is None:
            continue
        out.append(Hit(r[1], r[2], r[3], r[4], snippet(r[5], query), round(score, 6), cid))
    return out


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"(?m)^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?=\S)|\d+\.\s+)|```\w*|[*_`~]{1,3}")


def plain(text: str) -> str:
    """Markdown reduced to its words: headings, emphasis, code fences and link targets dropped."""
    return _MARKUP.sub("", _LINK.sub(r"\1", text))


def snippet(text: str, query: str, width: int = 240) -> str:
    """About `width` characters of plain text around the first query term, cut between words."""
    text = " ".join(plain(text).split())
    terms = [t.lower() for t in _TOKEN.findall(query) if len(t) > 2]
    low = text.lower()
    pos = min((p for p in (low.find(t) for t in terms) if p >= 0), default=0)
    start = max(0, pos - width // 3)
    if start:  # begin at a word: after the space at or before start
        space = text.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 else 0
    end = min(len(text), start + width)
    if end < len(text):  # end at a word: before the space at or after end
        space = text.rfind(" ", start, end + 1)
        end = space if space > start else end
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")
