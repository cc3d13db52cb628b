"""Incremental indexing of one folder into one base, serialized across processes by a lock.

Three phases so a crash never leaves a half-updated index: scan and chunk (no writes), embed the
chunks whose content hash has no vector yet (vectors are content-addressed, so storing them early
is harmless), then apply every file change and drop orphan vectors in one transaction.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .chunk import Chunk, chunk_text
from .embed import Embedder
from .names import kb_root
from .private import Private, denied_path, holds_private_key
from .store import KbError, KbNotFound, ModelMismatch, Store, check_name
from .walk import Skipped, is_binary, read_regular, walk

if TYPE_CHECKING:
    import portalocker

Progress = Callable[[dict[str, Any]], None]
EMBED_BATCH = 32


@dataclass
class IndexSummary:
    """What one index run did."""

    name: str
    files: int = 0
    changed: int = 0
    unchanged: int = 0
    deleted: int = 0
    chunks: int = 0
    embedded: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    model: str = ""
    seconds: float = 0.0


def _hash(data: bytes | str) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def embed_input(c: Chunk, rel: str) -> str:
    """What gets embedded for a chunk: where it sits, then its text."""
    head = f"{rel} > {c.heading}" if c.heading else rel
    return f"{head}\n{c.text}"


def lock_for(home: Path, name: str) -> portalocker.Lock:
    """The base's inter-process lock (GG_HOME/kb/<name>.lock, beside its folder)."""
    import portalocker  # ~20 ms of imports, paid when a base is indexed, not at daemon start

    root = kb_root(home)
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return portalocker.Lock(str(root / f"{name}.lock"), mode="a", timeout=None)


def _acquire(lock: portalocker.Lock, name: str, progress: Progress) -> None:
    import portalocker

    try:
        lock.acquire(timeout=0, fail_when_locked=True)
    except portalocker.exceptions.LockException:
        progress({"phase": "waiting", "name": name})
        lock.acquire(timeout=None)


def index_folder(
    home: Path,
    name: str,
    folder: Path,
    embedder: Embedder | None,
    progress: Progress | None = None,
) -> IndexSummary:
    """Bring base `name` up to date with `folder`; blocking (run it in a worker thread)."""
    check_name(name)
    emit = progress or (lambda _e: None)
    folder = folder.resolve()
    if not folder.is_dir():
        raise KbError("the folder to index does not exist or is not a folder")
    private = Private.of(home)
    if private.covers(folder) or denied_path(folder):
        raise KbError(
            "that folder holds credentials or gg's own state (GG_HOME), which a knowledge "
            "base never indexes: its text would reach the model; pick another folder"
        )
    lock = lock_for(home, name)
    _acquire(lock, name, emit)
    try:
        return _index_locked(home, name, folder, embedder, emit, private)
    finally:
        lock.release()


def _index_locked(
    home: Path,
    name: str,
    folder: Path,
    embedder: Embedder | None,
    emit: Progress,
    private: Private,
) -> IndexSummary:
    t0 = time.monotonic()
    st = Store(home, name, create=True)
    try:
        model = _check_base(st, name, folder, embedder)
        summary = IndexSummary(name=name, model=model or st.model)
        known = dict(st.db.execute("SELECT path, hash FROM files").fetchall())
        skipped = Skipped()
        files = list(walk(folder, skipped, private))
        changes, seen = _scan(files, known, skipped, summary, emit)
        summary.files = len(seen)
        summary.changed = len(changes)
        deleted = [p for p in known if p not in seen]
        summary.deleted = len(deleted)
        summary.skipped = {
            "ignored": skipped.ignored,
            "binary": skipped.binary,
            "tooBig": skipped.too_big,
            "private": skipped.private,
            "linked": skipped.linked,
        }
        if embedder is not None:
            summary.embedded = _embed_missing(st, embedder, changes, emit, name)
        _apply(st, changes, deleted, folder, summary, embedder)
        summary.seconds = round(time.monotonic() - t0, 3)
        total = len(files)
        emit(
            {
                "phase": "done",
                "name": name,
                "files": total,
                "filesTotal": total,
                "chunks": summary.chunks,
                "embedded": summary.embedded,
            }
        )
        return summary
    finally:
        st.close()


def _check_base(st: Store, name: str, folder: Path, embedder: Embedder | None) -> str:
    """The configured model, once the base is known to index this folder with it (else KbError)."""
    root = st.meta("root")
    if root and root != str(folder):
        raise KbError(
            f"knowledge base '{name}' indexes another folder; pick another --name or "
            f"remove it first (gg kb remove {name})"
        )
    model = embedder.model if embedder else ""
    if st.model and model and st.model != model:
        raise ModelMismatch(
            f"knowledge base '{name}' was built with {st.model}, the configured source is "
            f"{model}; remove and re-index it, or configure {st.model} again"
        )
    if st.model and not model:
        raise ModelMismatch(
            f"knowledge base '{name}' was built with {st.model} and no embedding source "
            "is configured now; configure it again, or remove and re-index for BM25 only"
        )
    return model


Change = tuple[str, str, int, list[Chunk]]  # path, content hash, size, its chunks


def _scan(
    files: list[tuple[str, Path]],
    known: dict[str, str],
    skipped: Skipped,
    summary: IndexSummary,
    emit: Progress,
) -> tuple[list[Change], set[str]]:
    """Read and chunk what changed (no writes): the changes and every path still indexed."""
    total = len(files)
    emit({"phase": "scan", "name": summary.name, "files": 0, "filesTotal": total})
    changes: list[Change] = []
    seen: set[str] = set()
    for n, (rel, path) in enumerate(files, 1):
        data = read_regular(path)
        if data is None:
            continue  # gone, or swapped for a link since the walk saw it
        if is_binary(data[:8192]):
            skipped.binary += 1
            continue
        if holds_private_key(data):
            skipped.private += 1  # never indexed; an earlier index of it is deleted
            continue
        seen.add(rel)
        digest = _hash(data)
        if known.get(rel) == digest:
            summary.unchanged += 1
        else:
            chunks = chunk_text(data.decode("utf-8", errors="replace"), rel)
            changes.append((rel, digest, len(data), chunks))
            summary.chunks += len(chunks)
        if n % 50 == 0 or n == total:
            progress = {"files": n, "filesTotal": total, "chunks": summary.chunks}
            emit({"phase": "scan", "name": summary.name, **progress})
    return changes, seen


def _embed_missing(
    st: Store,
    embedder: Embedder,
    changes: list[Change],
    emit: Progress,
    name: str,
) -> int:
    import numpy as np

    todo: dict[str, str] = {}
    for rel, _d, _s, chunks in changes:
        for c in chunks:
            text = embed_input(c, rel)
            todo.setdefault(_hash(text), text)
    # Chunks already indexed without a vector (a base built before a source was configured).
    gone = {c[0] for c in changes}
    for h, rel, heading, text in st.db.execute(
        "SELECT c.hash, c.path, c.heading, c.text FROM chunks c "
        "LEFT JOIN vectors v ON v.hash = c.hash WHERE v.hash IS NULL"
    ).fetchall():
        if rel not in gone:
            todo.setdefault(h, embed_input(Chunk(text, heading, 0, 0), rel))
    have = {h for (h,) in st.db.execute("SELECT hash FROM vectors")}
    missing = [(h, t) for h, t in todo.items() if h not in have]
    emit({"phase": "embed", "name": name, "embedded": 0, "embedTotal": len(missing)})
    dim = st.dim
    done = 0
    for s in range(0, len(missing), EMBED_BATCH):
        batch = missing[s : s + EMBED_BATCH]
        vecs = np.asarray(embedder.embed([t for _h, t in batch]), dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape[0] != len(batch):
            raise KbError("the embedding source answered with the wrong number of vectors")
        if dim and vecs.shape[1] != dim:
            raise ModelMismatch(
                f"the embedding source now answers with dimension {vecs.shape[1]}, the index "
                f"holds {dim}; remove and re-index this knowledge base"
            )
        dim = int(vecs.shape[1])
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs = vecs / np.maximum(norms, 1e-12)  # unit rows: cosine is a dot product
        with st.db:
            st.db.executemany(
                "INSERT OR REPLACE INTO vectors(hash, vec) VALUES (?, ?)",
                [(h, v.tobytes()) for (h, _t), v in zip(batch, vecs, strict=True)],
            )
            if not st.dim:
                st.set_meta(model=embedder.model, dim=dim)
        done += len(batch)
        emit({"phase": "embed", "name": name, "embedded": done, "embedTotal": len(missing)})
    return done


def _apply(
    st: Store,
    changes: list[Change],
    deleted: list[str],
    folder: Path,
    summary: IndexSummary,
    embedder: Embedder | None,
) -> None:
    db = st.db
    with db:
        for rel in [*deleted, *(c[0] for c in changes)]:
            ids = [r for (r,) in db.execute("SELECT id FROM chunks WHERE path=?", (rel,))]
            db.executemany("DELETE FROM chunks_fts WHERE rowid=?", [(i,) for i in ids])
            db.execute("DELETE FROM chunks WHERE path=?", (rel,))
            db.execute("DELETE FROM files WHERE path=?", (rel,))
        for rel, digest, size, chunks in changes:
            for ordn, c in enumerate(chunks):
                cur = db.execute(
                    "INSERT INTO chunks(path, ord, heading, start_line, end_line, hash, text) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (rel, ordn, c.heading, c.start, c.end, _hash(embed_input(c, rel)), c.text),
                )
                db.execute(
                    "INSERT INTO chunks_fts(rowid, text, heading, path) VALUES (?, ?, ?, ?)",
                    (cur.lastrowid, c.text, c.heading, rel),
                )
            db.execute(
                "INSERT INTO files(path, hash, size, chunks) VALUES (?, ?, ?, ?)",
                (rel, digest, size, len(chunks)),
            )
        db.execute("DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM chunks)")
        values: dict[str, Any] = {
            "root": str(folder),
            "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        if changes or deleted:
            values["generation"] = st.generation + 1
        if embedder is not None and not st.model:
            values["model"] = embedder.model
        st.set_meta(**values)


def remove_base(home: Path, name: str) -> None:
    """Delete a base (waits for a running indexer of it to finish)."""
    check_name(name)
    d = kb_root(home) / name
    if not (d / "index.sqlite").is_file():
        raise KbNotFound(f"no knowledge base named '{name}' (see `gg kb list`)")
    lock = lock_for(home, name)
    lock.acquire(timeout=None)
    try:
        shutil.rmtree(d)
    finally:
        lock.release()
