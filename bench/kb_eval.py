"""Recall@k and MRR of bm25, vector and hybrid on a cases file, with an RRF k / depth sweep.

    python bench/kb_eval.py --root DIR --cases tests/data/kb_cases.jsonl [--sweep] [--json]

Indexes DIR into a scratch GG_HOME (or --home) with the offline MiniLM, then ranks every case
in-process (the same code gg/kb.search runs). Matching is `gg kb eval`'s.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ggd.capabilities.kb import search as S
from ggd.capabilities.kb.cli import load_cases, score
from ggd.capabilities.kb.embed import LocalEmbedder
from ggd.capabilities.kb.index import index_folder
from ggd.capabilities.kb.store import Store


def _hits(st: Store, ranked: list[tuple[int, float]]) -> list[dict[str, Any]]:
    return [{"path": h.path, "heading": h.heading} for h in S._hits(st, ranked, "")]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--cases", type=Path, required=True)
    ap.add_argument("--home", type=Path)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    home = a.home or Path(tempfile.mkdtemp(prefix="kb-eval-"))
    emb = LocalEmbedder(home)
    t0 = time.perf_counter()
    summary = index_folder(home, "eval", a.root, emb)
    index_s = time.perf_counter() - t0
    cases = load_cases(a.cases)
    st = Store(home, "eval")
    qvecs = emb.embed([c["query"] for c in cases])
    depth_max = 200
    bm = [S.bm25(st, c["query"], depth_max) for c in cases]
    ve = [S.vector(st, q, depth_max) for q in qvecs]
    out: dict[str, Any] = {
        "cases": len(cases),
        "chunks": st.info().chunks,
        "indexSeconds": round(index_s, 1),
        "embedded": summary.embedded,
        "bm25": score(cases, [_hits(st, r[:10]) for r in bm], a.k),
        "vector": score(cases, [_hits(st, r[:10]) for r in ve], a.k),
    }
    hy = [S.rrf([b[: S.DEPTH], v[: S.DEPTH]], S.RRF_K)[:10] for b, v in zip(bm, ve, strict=True)]
    out["hybrid"] = score(cases, [_hits(st, r) for r in hy], a.k)
    if a.sweep:
        sweep = []
        for k in (1, 5, 10, 20, 30, 60, 100):
            for depth in (5, 10, 20, 50, 100):
                fused = [S.rrf([b[:depth], v[:depth]], k)[:10] for b, v in zip(bm, ve, strict=True)]
                s = score(cases, [_hits(st, r) for r in fused], a.k)
                sweep.append({"rrfK": k, "depth": depth, **s})
        out["sweep"] = sweep
    st.close()
    if a.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{out['cases']} cases over {out['chunks']} chunks (indexed in {out['indexSeconds']}s)")
    for m in ("bm25", "vector", "hybrid"):
        print(f"{m:<8} recall@{a.k} {out[m]['recall']:.3f}  MRR@10 {out[m]['mrr']:.3f}")
    for row in out.get("sweep", []):
        print(
            f"  rrfK={row['rrfK']:<4} depth={row['depth']:<4} recall@{a.k} {row['recall']:.3f}  MRR {row['mrr']:.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
