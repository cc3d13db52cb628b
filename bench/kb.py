"""Benchmark of the knowledge base: index throughput and search latency at ~10k chunks.

Run: .venv/bin/python bench/kb.py [--json] [--files 1000] [--queries 200]

A seeded synthetic Markdown corpus (--files files x 10 sections of ~1,000 characters, about 10k
chunks) is indexed three ways: BM25 only, with vectors from an in-process hashing embedder
(384-d, so the figure is the index's own cost, not a model's), and again unchanged. Search
p50/p99 are over --queries random 3-5 word queries per mode, the query vector precomputed. The
offline MiniLM's own rate (chunks/s, query ms) is measured separately on real-sized chunks when
the kb-local extra is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# kb first: it pins OpenBLAS to one thread, which must happen before numpy loads (as in ggd)
from ggd.capabilities.kb import search as S  # noqa: I001

import numpy as np
from ggd.capabilities.kb.index import index_folder
from ggd.capabilities.kb.minilm import local_model_reason
from ggd.capabilities.kb.store import Store

DIM = 384


class HashEmbedder:
    """Hashed bag of words, 384-d: cheap stand-in so the bench measures the index, not a model."""

    model = "bench-hash"

    def embed(self, texts: list[str]) -> Any:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=4).digest(), "little")
                out[i, h % DIM] += 1.0
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


def _vocab(rng: random.Random, n: int = 6000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(n)]


def make_corpus(root: Path, files: int, seed: int = 7) -> list[str]:
    """Write the corpus; returns the vocabulary (for queries)."""
    rng = random.Random(seed)
    vocab = _vocab(rng)
    weights = [1 / (i + 1) for i in range(len(vocab))]  # Zipf-like, as real text is
    for f in range(files):
        parts = [f"# Document {f}\n"]
        for s in range(10):
            words = rng.choices(vocab, weights, k=150)
            lines = [" ".join(words[i : i + 15]) for i in range(0, 150, 15)]
            parts.append(f"## Section {s}\n\n" + "\n".join(lines) + "\n")
        d = root / f"d{f % 20:02d}"
        d.mkdir(exist_ok=True)
        (d / f"doc{f:05d}.md").write_text("\n".join(parts))
    return vocab


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_index(home: Path, root: Path, name: str, embedder: Any) -> dict[str, float]:
    t0 = time.perf_counter()
    s = index_folder(home, name, root, embedder)
    dt = time.perf_counter() - t0
    return {
        "seconds": round(dt, 3),
        "files": s.files,
        "chunks": s.chunks,
        "filesPerSec": round(s.files / dt, 1),
        "chunksPerSec": round(s.chunks / dt, 1),
        "embedded": s.embedded,
    }


def bench_search(home: Path, name: str, vocab: list[str], n: int, emb: Any) -> dict[str, Any]:
    rng = random.Random(11)
    queries = [" ".join(rng.choices(vocab[:2000], k=rng.randint(3, 5))) for _ in range(n)]
    qvecs = emb.embed(queries)
    st = Store(home, name)
    S.vector(st, qvecs[0], S.DEPTH)  # load the matrix once, as a running daemon has
    out: dict[str, Any] = {"chunks": st.info().chunks}
    for mode in ("bm25", "vector", "hybrid"):
        times = []
        for q, v in zip(queries, qvecs, strict=True):
            t0 = time.perf_counter()
            if mode == "bm25":
                ranked = S.bm25(st, q, S.DEPTH)
            elif mode == "vector":
                ranked = S.vector(st, v, S.DEPTH)
            else:
                ranked = S.rrf([S.bm25(st, q, S.DEPTH), S.vector(st, v, S.DEPTH)])
            S._hits(st, ranked[:5], q)
            times.append((time.perf_counter() - t0) * 1000)
        out[mode] = {"p50Ms": round(_pct(times, 0.5), 3), "p99Ms": round(_pct(times, 0.99), 3)}
    st.close()
    return out


def bench_minilm(home: Path) -> dict[str, Any]:
    reason = local_model_reason()
    if reason:
        return {"skipped": reason}
    from ggd.capabilities.kb.embed import LocalEmbedder

    emb = LocalEmbedder(home)
    emb.embed(["warm up"])
    rng = random.Random(3)
    words = "the index stores chunks of documents and code with their headings and lines".split()
    chunks = [" ".join(rng.choices(words, k=200)) for _ in range(32)]  # ~1,100 chars each
    t0 = time.perf_counter()
    emb.embed(chunks)
    rate = len(chunks) / (time.perf_counter() - t0)
    times = []
    for i in range(20):
        t0 = time.perf_counter()
        emb.embed([f"how do I configure the thing number {i}"])
        times.append((time.perf_counter() - t0) * 1000)
    return {"chunksPerSec": round(rate, 2), "queryP50Ms": round(_pct(times, 0.5), 1)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-model", action="store_true", help="skip the offline model figures")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-bench-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "corpus"
        root.mkdir()
        vocab = make_corpus(root, a.files)
        emb = HashEmbedder()
        res: dict[str, Any] = {
            "indexBm25": bench_index(home, root, "bm25", None),
            "indexVectors": bench_index(home, root, "vec", emb),
            "reindexUnchanged": bench_index(home, root, "vec", emb),
            "search": bench_search(home, "vec", vocab, a.queries, emb),
        }
        if not a.no_model:
            res["minilm"] = bench_minilm(home)
    if a.json:
        print(json.dumps(res, indent=2))
        return 0
    for k in ("indexBm25", "indexVectors", "reindexUnchanged"):
        r = res[k]
        print(
            f"{k:<17} {r['files']} files {r['chunks']} chunks in {r['seconds']}s: "
            f"{r['filesPerSec']} files/s, {r['chunksPerSec']} chunks/s, {r['embedded']} embedded"
        )
    s = res["search"]
    print(f"search over {s['chunks']} chunks:")
    for m in ("bm25", "vector", "hybrid"):
        print(f"  {m:<7} p50 {s[m]['p50Ms']:.2f} ms  p99 {s[m]['p99Ms']:.2f} ms")
    if "minilm" in res:
        print(f"offline MiniLM: {res['minilm']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
