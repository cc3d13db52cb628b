"""gg/kb.list|index|search|remove and the gg/kb.progress notification."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ggd.protocol import MethodSpec
from ggd.protocol.base import Empty, Event, Params, Result

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class KbBase(Result):
    """One knowledge base."""

    name: str
    root: str
    files: int
    chunks: int
    vectors: int
    model: str = Field(description="embedding model of the vectors; empty for BM25 only")
    dim: int
    updated: str


class KbListResult(Result):
    """Every knowledge base and the embedding source configured now."""

    bases: list[KbBase]
    embeddings: str = Field(description="which embedding source indexing and queries use")
    model: str = Field(description="that source's model; empty when there is none (BM25 only)")


class KbIndexParams(Params):
    """Index (or bring up to date) a folder; relative paths are from the workspace root."""

    path: str = Field(min_length=1, max_length=4096)
    name: str | None = Field(default=None, pattern=NAME_PATTERN)


class KbSkipped(Result):
    """Files the walk left out."""

    ignored: int = 0
    binary: int = 0
    too_big: int = 0
    private: int = Field(
        default=0, description="credential locations, gg's own state and private keys"
    )
    linked: int = Field(default=0, description="files with several hard links")


class KbIndexResult(Result):
    """What the index run did."""

    name: str
    files: int
    changed: int
    unchanged: int
    deleted: int
    chunks: int = Field(description="chunks written for changed files")
    embedded: int = Field(description="chunks sent to the embedding source")
    skipped: KbSkipped
    model: str
    seconds: float


class KbSearchParams(Params):
    """Search one base (the only one when there is just one)."""

    query: str = Field(min_length=1, max_length=4000)
    name: str | None = Field(default=None, pattern=NAME_PATTERN)
    top_k: int = Field(default=5, ge=1, le=100)
    mode: Literal["bm25", "vector", "hybrid"] = "hybrid"


class KbHit(Result):
    """One result: source path relative to the indexed root, heading path, lines, snippet."""

    path: str
    heading: str
    start_line: int
    end_line: int
    snippet: str
    score: float


class KbSearchResult(Result):
    """Hits best first, and the mode used (hybrid on a BM25-only base is bm25)."""

    name: str
    mode: str
    hits: list[KbHit]


class KbNameParams(Params):
    """A base by name."""

    name: str = Field(pattern=NAME_PATTERN)


class KbProgress(Event):
    """Progress of one gg/kb.index call: phase scan, embed, waiting (for another indexer) or done."""

    name: str
    phase: Literal["waiting", "scan", "embed", "done"]
    files: int = 0
    files_total: int = 0
    chunks: int = 0
    embedded: int = 0
    embed_total: int = 0


KB_LIST = MethodSpec(
    "gg/kb.list",
    "The knowledge bases under GG_HOME/kb and the configured embedding source.",
    Empty,
    KbListResult,
    example={
        "params": {},
        "result": {
            "bases": [
                {
                    "name": "docs",
                    "root": "/home/me/docs",
                    "files": 18,
                    "chunks": 140,
                    "vectors": 140,
                    "model": "all-MiniLM-L6-v2 (local)",
                    "dim": 384,
                    "updated": "2026-12-01T10:00:00Z",
                }
            ],
            "embeddings": "embeddings from the offline all-MiniLM-L6-v2",
            "model": "all-MiniLM-L6-v2 (local)",
        },
    },
)
KB_INDEX = MethodSpec(
    "gg/kb.index",
    "Index a folder into a knowledge base (incremental); gg/kb.progress reports as it goes.",
    KbIndexParams,
    KbIndexResult,
    example={
        "params": {"path": "docs", "name": "docs"},
        "result": {
            "name": "docs",
            "files": 18,
            "changed": 1,
            "unchanged": 17,
            "deleted": 0,
            "chunks": 9,
            "embedded": 2,
            "skipped": {"ignored": 3, "binary": 1, "tooBig": 0},
            "model": "all-MiniLM-L6-v2 (local)",
            "seconds": 0.41,
        },
    },
)
KB_SEARCH = MethodSpec(
    "gg/kb.search",
    "Search a knowledge base: bm25, vector or hybrid (reciprocal rank fusion).",
    KbSearchParams,
    KbSearchResult,
    example={
        "params": {"query": "record a trace", "name": "docs", "topK": 1},
        "result": {
            "name": "docs",
            "mode": "hybrid",
            "hits": [
                {
                    "path": "playwright-cli/references/tracing.md",
                    "heading": "Tracing > Start",
                    "startLine": 12,
                    "endLine": 30,
                    "snippet": "playwright-cli tracing-start ...",
                    "score": 0.0325,
                }
            ],
        },
    },
)
KB_REMOVE = MethodSpec(
    "gg/kb.remove",
    "Delete a knowledge base's index (the indexed files are untouched).",
    KbNameParams,
    Empty,
    example={"params": {"name": "docs"}, "result": {}},
)
KB_PROGRESS = MethodSpec(
    "gg/kb.progress",
    "Server notification: progress of the caller's gg/kb.index (files, chunks, embeddings).",
    KbProgress,
    kind="notification",
    direction="server",
    example={"params": {"name": "docs", "phase": "embed", "embedded": 64, "embedTotal": 140}},
)
METHODS = (KB_LIST, KB_INDEX, KB_SEARCH, KB_REMOVE, KB_PROGRESS)
