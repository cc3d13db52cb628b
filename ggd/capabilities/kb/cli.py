"""`gg kb index|search|list|remove|eval`: knowledge bases from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ggcli.commands import add_connection_flags, connect
from ggcli.rpc import RpcError

NAMES = ("kb",)
MODES = ("bm25", "vector", "hybrid")


def register(sub: Any) -> None:
    """Add `gg kb ...`."""
    p = sub.add_parser("kb", help="index folders and search them (knowledge bases)")
    ksub = p.add_subparsers(dest="action", required=True)
    idx = ksub.add_parser("index", help="index a folder (again: only what changed)")
    idx.add_argument("dir", type=Path)
    idx.add_argument("--name", help="knowledge base name (default: the folder's name)")
    se = ksub.add_parser("search", help="search a knowledge base")
    se.add_argument("query")
    se.add_argument("--top-k", type=int, default=5)
    se.add_argument("--name")
    se.add_argument("--mode", choices=MODES, default="hybrid")
    se.add_argument("--json", action="store_true", help="print the raw result")
    ls = ksub.add_parser("list", help="list knowledge bases")
    ls.add_argument("--json", action="store_true")
    rm = ksub.add_parser("remove", help="delete a knowledge base's index")
    rm.add_argument("name")
    ev = ksub.add_parser("eval", help="recall@k and MRR of bm25, vector and hybrid on cases")
    ev.add_argument("--cases", type=Path, required=True, help='JSONL of {"query", "expect"}')
    ev.add_argument("--name")
    ev.add_argument("-k", type=int, default=5, help="recall cut-off (default 5)")
    ev.add_argument("--json", action="store_true")
    for q in (idx, se, ls, rm, ev):
        add_connection_flags(q)


def run(args: argparse.Namespace) -> int:
    """Run one kb command."""
    if args.action == "eval":
        cases = load_cases(args.cases)  # a bad file is reported before connecting
    client = connect(args)
    try:
        if args.action == "index":
            return _index(client, args)
        if args.action == "search":
            return _search(client, args)
        if args.action == "list":
            return _list(client, args)
        if args.action == "remove":
            client.request("gg/kb.remove", {"name": args.name}, timeout=120)
            print(f"removed knowledge base {args.name}")
            return 0
        return _eval(client, args, cases)
    finally:
        client.close()


class _Bar:
    """One status line on stderr: redrawn in place on a terminal; elsewhere (a log, a pipe) plain
    lines, each phase's first and last state and at most one line per PLAIN_EVERY seconds."""

    PLAIN_EVERY = 10.0

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.tty = sys.stderr.isatty()
        self.clock = clock
        self.phase = ""
        self.last = ""
        self.shown = ""
        self.shown_at = 0.0
        self.rate = _Rate()

    def show(self, p: dict[str, Any]) -> None:
        phase = p.get("phase", "")
        now = self.clock()
        if phase == "waiting":
            text = "waiting for another indexer of this knowledge base..."
        elif phase == "scan":
            done, total = p.get("files", 0), p.get("filesTotal", 0)
            text = f"files  {_bar(done, total)} {done}/{total}  chunks {p.get('chunks', 0)}"
        elif phase == "embed":
            done, total = p.get("embedded", 0), p.get("embedTotal", 0)
            if phase != self.phase:
                self.rate = _Rate()
            self.rate.add(now, done)
            text = f"embed  {_bar(done, total)} {done}/{total}  {self.rate.describe(total)}"
        else:
            text = ""
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + text)
            if phase == "done":
                sys.stderr.write("\r\x1b[2K")
        elif phase != self.phase or (text and now - self.shown_at >= self.PLAIN_EVERY):
            # a log, not a terminal: each phase's last state, then the next phase's first
            if phase != self.phase and self.last and self.last != self.shown:
                sys.stderr.write(self.last + "\n")
            if text:
                sys.stderr.write(text + "\n")
                self.shown_at = now
            self.shown = text
        sys.stderr.flush()
        self.phase = phase
        self.last = text or self.last


class _Rate:
    """Chunks per second and the time left: over the updates after the first batch (the first
    includes loading the model), or from the start while there is only one."""

    def __init__(self) -> None:
        self.points: list[tuple[float, int]] = []

    def add(self, t: float, done: int) -> None:
        self.points.append((t, done))

    def per_second(self) -> float | None:
        started = [pt for pt in self.points if pt[1] > 0]
        if len(started) >= 2:
            (t0, n0), (t1, n1) = started[0], started[-1]
        elif started and len(self.points) > len(started):
            (t0, n0), (t1, n1) = self.points[0], started[-1]
        else:
            return None
        return (n1 - n0) / (t1 - t0) if t1 > t0 and n1 > n0 else None

    def describe(self, total: int) -> str:
        rate = self.per_second()
        if rate is None:
            return "ETA --"
        done = self.points[-1][1]
        return f"{rate:.1f} chunks/s  ETA {_duration(max(0, total - done) / rate)}"


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _bar(done: int, total: int, width: int = 24) -> str:
    frac = done / total if total else 1.0
    full = int(frac * width)
    return "[" + "#" * full + "." * (width - full) + "]"


def _index(client: Any, args: argparse.Namespace) -> int:
    params: dict[str, Any] = {"path": str(args.dir.resolve())}
    if args.name:
        params["name"] = args.name
    rid = client.send_request("gg/kb.index", params)
    bar = _Bar()
    while True:
        while client.notifications:
            msg = client.notifications.popleft()
            if msg.get("method") == "gg/kb.progress":
                bar.show(msg.get("params") or {})
        if rid in client._responses:
            break
        client.pump(None)
    s = client.wait_response(rid, timeout=None)
    sk = s["skipped"]
    print(
        f"{s['name']}: {s['files']} files ({s['changed']} changed, {s['unchanged']} unchanged, "
        f"{s['deleted']} deleted), {s['chunks']} chunks written, {s['embedded']} embedded"
        + (f" with {s['model']}" if s["model"] else " (BM25 only)")
        + f"; skipped {sk['ignored']} ignored, {sk['binary']} binary, {sk['tooBig']} too big"
        + (f", {sk['private']} private (credentials, keys)" if sk.get("private") else "")
        + (f", {sk['linked']} hard-linked" if sk.get("linked") else "")
        + f"; {s['seconds']:.2f}s"
    )
    return 0


def _search(client: Any, args: argparse.Namespace) -> int:
    params: dict[str, Any] = {"query": args.query, "topK": args.top_k, "mode": args.mode}
    if args.name:
        params["name"] = args.name
    res = client.request("gg/kb.search", params, timeout=120)
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    if not res["hits"]:
        print(f"no match in {res['name']}")
        return 1
    for i, h in enumerate(res["hits"], 1):
        where = f"{h['path']}:{h['startLine']}-{h['endLine']}"
        print(f"{i}. {where}" + (f"  [{h['heading']}]" if h["heading"] else ""))
        print(f"   {h['snippet']}")
    return 0


def _list(client: Any, args: argparse.Namespace) -> int:
    res = client.request("gg/kb.list", {})
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print(f"embedding source: {res['embeddings']}")
    if not res["bases"]:
        print("no knowledge base yet (gg kb index DIR)")
    for b in res["bases"]:
        model = f"{b['model']} ({b['dim']}d)" if b["model"] else "BM25 only"
        print(
            f"{b['name']:<20} {b['files']:>6} files {b['chunks']:>7} chunks  {model}  {b['root']}"
        )
    return 0


def load_cases(path: Path) -> list[dict[str, Any]]:
    """The cases file: one {"query": str, "expect": [str, ...]} per line."""
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise SystemExit(f"gg: cannot read {path}: {exc.strerror}") from None
    cases = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            c = json.loads(line)
            ok = isinstance(c["query"], str) and isinstance(c["expect"], list) and c["expect"]
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            raise SystemExit(f'gg: {path}:{n}: expected {{"query": "...", "expect": ["..."]}}')
        cases.append(c)
    if not cases:
        raise SystemExit(f"gg: {path} has no cases")
    return cases


def matches(hit: dict[str, Any], expect: str) -> bool:
    """`path` (a suffix of the hit's path), `#heading` or `path#heading` (heading substring)."""
    path, _, heading = expect.partition("#")
    if path and not hit["path"].endswith(path):
        return False
    return not heading or heading.lower() in hit["heading"].lower()


def score(
    cases: list[dict[str, Any]], ranked: list[list[dict[str, Any]]], k: int
) -> dict[str, float]:
    """recall@k (a case counts when any expected item is in the top k) and MRR over the list."""
    hit_at_k, rr = 0, 0.0
    for case, hits in zip(cases, ranked, strict=True):
        rank = next(
            (i for i, h in enumerate(hits, 1) if any(matches(h, e) for e in case["expect"])), 0
        )
        hit_at_k += 1 if 0 < rank <= k else 0
        rr += 1.0 / rank if rank else 0.0
    return {"recall": hit_at_k / len(cases), "mrr": rr / len(cases)}


def _eval(client: Any, args: argparse.Namespace, cases: list[dict[str, Any]]) -> int:
    depth = max(args.k, 10)
    out: dict[str, dict[str, float]] = {}
    for mode in MODES:
        ranked = []
        for c in cases:
            params: dict[str, Any] = {"query": c["query"], "topK": depth, "mode": mode}
            if args.name:
                params["name"] = args.name
            try:
                ranked.append(client.request("gg/kb.search", params, timeout=120)["hits"])
            except RpcError as exc:
                if mode == "bm25":
                    raise
                sys.stderr.write(f"{mode}: skipped ({exc.message})\n")
                break
        else:
            out[mode] = score(cases, ranked, args.k)
    if args.json:
        print(json.dumps({"cases": len(cases), "k": args.k, **out}, indent=2))
        return 0
    print(f"{len(cases)} cases, k={args.k}")
    print(f"{'mode':<8} {'recall@' + str(args.k):>9} {'MRR@' + str(depth):>8}")
    for mode, s in out.items():
        print(f"{mode:<8} {s['recall']:>9.3f} {s['mrr']:>8.3f}")
    return 0
