"""Benchmark of the knowledge base: index throughput and search latency at ~10k chunks.

Run: .venv/bin/python bench/kb.py [--json] [--files 1000] [--queries 200]
     .venv/bin/python bench/kb.py --model-only [--rounds 3] [--home GG_HOME]

A seeded synthetic Markdown corpus (--files files x 10 sections of ~1,000 characters, about 10k
chunks) is indexed three ways: BM25 only, with vectors from an in-process hashing embedder
(384-d, so the figure is the index's own cost, not a model's), and again unchanged. Search
p50/p99 are over --queries random 3-5 word queries per mode, the query vector precomputed. The
offline MiniLM's own rate is measured separately when the kb-local extra is installed: full
256-word-piece chunks, 32 a call as the indexer sends them, each way to run the model (numpy
float32, onnxruntime float32, onnxruntime int8) in interleaved rounds, with chunks per second,
chunks per CPU-second and the load average, because the machine may be shared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
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


def _full_chunks(n: int) -> list[str]:
    """n texts past the model's 256-word-piece cut, so every one costs a full forward pass."""
    rng = random.Random(3)
    words = "the index stores chunks of documents and code with their headings and lines".split()
    return [" ".join(rng.choices(words, k=300)) for _ in range(n)]


def bench_minilm(home: Path, rounds: int = 3, n: int = 32) -> dict[str, Any]:
    """Full chunks/s of each way to run the offline model, interleaved round by round (the
    machine may be shared: each figure comes with the load average and the CPU time used)."""
    reason = local_model_reason()
    if reason:
        return {"skipped": reason}
    from ggd.capabilities.kb.embed import load_local
    from ggd.capabilities.kb.minilm import MiniLM, ensure_extracted
    from ggd.capabilities.kb.minilm_ort import OrtMiniLM, ort_reason, workers

    folder = ensure_extracted(home)
    ref = MiniLM(folder)
    variants: dict[str, Any] = {"numpy float32 (1 thread)": ref}
    if ort_reason() is None:
        variants[f"onnxruntime float32 ({workers()} threads)"] = OrtMiniLM(folder, ref.tok, False)
        variants[f"onnxruntime int8 ({workers()} threads)"] = OrtMiniLM(folder, ref.tok, True)
    chunks = _full_chunks(n)
    for m in variants.values():
        m.embed(chunks[:2])  # warm: sessions, pools, the float32 session for short texts
    runs: dict[str, list[tuple[float, float, float]]] = {k: [] for k in variants}
    for _ in range(rounds):
        for name, m in variants.items():
            load = os.getloadavg()[0]
            c0, t0 = time.process_time(), time.perf_counter()
            m.embed(chunks)  # one call of the indexer's size (index.EMBED_BATCH)
            cpu, wall = time.process_time() - c0, time.perf_counter() - t0
            runs[name].append((n / wall, n / cpu, load))
    out: dict[str, Any] = {"chunkTokens": 256, "chunks": n, "rounds": rounds, "cpus": workers()}
    for name, rs in runs.items():
        out[name] = {
            "chunksPerSec": round(statistics.median(r[0] for r in rs), 1),
            "chunksPerCpuSec": round(statistics.median(r[1] for r in rs), 1),
            "load": round(statistics.mean(r[2] for r in rs), 1),
        }
    model, variant = load_local(home)
    times = []
    for i in range(20):
        t0 = time.perf_counter()
        model.embed([f"how do I configure the thing number {i}"])
        times.append((time.perf_counter() - t0) * 1000)
    out["default"] = variant
    out["queryP50Ms"] = round(_pct(times, 0.5), 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-model", action="store_true", help="skip the offline model figures")
    ap.add_argument("--model-only", action="store_true", help="only the offline model figures")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the model")
    ap.add_argument("--home", type=Path, help="GG_HOME whose extracted model to reuse")
    a = ap.parse_args()
    res: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="kb-bench-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "corpus"
        if not a.model_only:
            root.mkdir()
            vocab = make_corpus(root, a.files)
            emb = HashEmbedder()
            res["indexBm25"] = bench_index(home, root, "bm25", None)
            res["indexVectors"] = bench_index(home, root, "vec", emb)
            res["reindexUnchanged"] = bench_index(home, root, "vec", emb)
            res["search"] = bench_search(home, "vec", vocab, a.queries, emb)
        if not a.no_model:
            res["minilm"] = bench_minilm(a.home or home, a.rounds)
    if a.json:
        print(json.dumps(res, indent=2))
        return 0
    for k in ("indexBm25", "indexVectors", "reindexUnchanged"):
        if k not in res:
            continue
        r = res[k]
        print(
            f"{k:<17} {r['files']} files {r['chunks']} chunks in {r['seconds']}s: "
            f"{r['filesPerSec']} files/s, {r['chunksPerSec']} chunks/s, {r['embedded']} embedded"
        )
    if "search" in res:
        s = res["search"]
        print(f"search over {s['chunks']} chunks:")
        for m in ("bm25", "vector", "hybrid"):
            print(f"  {m:<7} p50 {s[m]['p50Ms']:.2f} ms  p99 {s[m]['p99Ms']:.2f} ms")
    mm = res.get("minilm")
    if mm and "skipped" in mm:
        print(f"offline MiniLM: skipped ({mm['skipped']})")
    elif mm:
        print(
            f"offline MiniLM, full {mm['chunkTokens']}-piece chunks, {mm['chunks']} a call, "
            f"median of {mm['rounds']} interleaved rounds, {mm['cpus']} usable cores:"
        )
        for name, r in mm.items():
            if isinstance(r, dict):
                print(
                    f"  {name:<32} {r['chunksPerSec']:>6} chunks/s  "
                    f"{r['chunksPerCpuSec']:>6} chunks/CPU-s  (load {r['load']})"
                )
        print(f"  default: {mm['default']}; query p50 {mm['queryP50Ms']} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
