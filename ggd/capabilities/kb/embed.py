"""Embedding sources: an OpenAI-compatible endpoint or the offline MiniLM; both synchronous
because indexing and query embedding run in a worker thread, never on the event loop."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import httpx

from . import minilm  # noqa: F401 - sets the BLAS thread count before numpy loads
from .config import Endpoint, KbConfig, resolve
from .minilm import MODEL_NAME, local_model_reason

log = logging.getLogger(__name__)


class EmbedError(Exception):
    """The source failed; the message names the endpoint, never the key."""


class Embedder(Protocol):
    """Turns texts into unit float32 vectors."""

    model: str

    def embed(self, texts: list[str]) -> list[list[float]] | Any:
        """One vector per text (a list of lists or a numpy array)."""
        ...


class HttpEmbedder:
    """POST {baseUrl}/embeddings in batches."""

    def __init__(self, ep: Endpoint) -> None:
        self.ep = ep
        self.model = ep.model

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Vectors in input order; an endpoint error is an EmbedError."""
        out: list[list[float]] = []
        headers = {"Authorization": f"Bearer {self.ep.api_key}"} if self.ep.api_key else {}
        with httpx.Client(timeout=self.ep.timeout) as http:
            for s in range(0, len(texts), self.ep.batch):
                batch = texts[s : s + self.ep.batch]
                body = {"model": self.ep.model, "input": batch}
                try:
                    resp = http.post(f"{self.ep.base_url}/embeddings", json=body, headers=headers)
                except httpx.HTTPError as exc:
                    raise EmbedError(
                        f"embeddings endpoint {self.ep.base_url} unreachable ({type(exc).__name__})"
                    ) from None
                if resp.status_code >= 400:
                    raise EmbedError(
                        f"embeddings endpoint {self.ep.base_url} answered {resp.status_code}"
                    )
                try:
                    data = sorted(resp.json()["data"], key=lambda d: d["index"])
                    vecs = [[float(x) for x in d["embedding"]] for d in data]
                except (ValueError, KeyError, TypeError):
                    raise EmbedError(
                        f"embeddings endpoint {self.ep.base_url} sent no embeddings"
                    ) from None
                if len(vecs) != len(batch):
                    raise EmbedError(
                        f"embeddings endpoint {self.ep.base_url} sent {len(vecs)} vectors "
                        f"for {len(batch)} inputs"
                    )
                out.extend(vecs)
        return out


class LocalEmbedder:
    """The offline MiniLM, loaded once per process (its weights are 90 MB).

    On onnxruntime (int8, checked against the float32 model; see minilm_ort) when it is
    installed, else the numpy float32 forward pass. `variant` says which one runs.
    """

    model = f"{MODEL_NAME} (local)"
    _lock = threading.Lock()
    _loaded: Any = None
    variant = ""

    def __init__(self, home: Path) -> None:
        self.home = home

    def embed(self, texts: list[str]) -> Any:
        """Unit vectors (numpy float32)."""
        with LocalEmbedder._lock:
            if LocalEmbedder._loaded is None:
                LocalEmbedder._loaded, LocalEmbedder.variant = load_local(self.home)
            model = LocalEmbedder._loaded
        return model.embed(texts)


def load_local(home: Path) -> tuple[Any, str]:
    """The fastest offline model that gives the float32 model's vectors (cosine >= 0.99)."""
    from .minilm import MiniLM, ensure_extracted
    from .minilm_ort import MIN_COSINE, OrtMiniLM, check, ort_reason

    folder = ensure_extracted(home)
    ref = MiniLM(folder)
    if ort_reason() is not None:
        return ref, "numpy float32"
    try:
        fast = OrtMiniLM(folder, ref.tok, int8=True)
        cos = check(fast, ref)
        if cos >= MIN_COSINE:
            return fast, f"onnxruntime int8 (cosine to float32 >= {cos:.3f})"
        log.warning("int8 MiniLM strays from float32 here (cosine %.3f): using float32", cos)
        return OrtMiniLM(folder, ref.tok, int8=False), "onnxruntime float32"
    except Exception as exc:  # a broken onnxruntime install or graph file: slower, not down
        log.warning("onnxruntime MiniLM unavailable (%s): using the numpy pass", exc)
        return ref, "numpy float32"


def choose(home: Path, cfg: KbConfig, env: Mapping[str, str]) -> tuple[Embedder | None, str]:
    """The configured source (endpoint first, else the offline model) and a note on the choice."""
    ep = resolve(cfg, env)
    if ep is not None:
        if _numpy_reason():
            return None, _numpy_reason() or ""
        return HttpEmbedder(ep), f"embeddings from {ep.base_url} ({ep.model})"
    if cfg.localModel == "off":
        return None, "no embedding source configured (kb.localModel is off): BM25 only"
    reason = local_model_reason()
    if reason:
        return None, f"{reason}; BM25 only"
    return LocalEmbedder(home), f"embeddings from the offline {MODEL_NAME}"


def _numpy_reason() -> str | None:
    import importlib.util

    if importlib.util.find_spec("numpy") is None:
        return "vector search needs numpy: pip install 'gg-agent[kb-local]'; BM25 only"
    return None
