"""all-MiniLM-L6-v2 on onnxruntime: the same weights, int8 matrix products, both cores.

The numpy forward pass in minilm.py costs ~0.15 CPU-seconds per full 256-token chunk; this one
~0.03. The graph is written here from the safetensors weights with the `onnx` helper API (no torch,
no export, no downloaded .onnx file) each time a process loads the model (kept in memory only):

- the Q/K/V, attention-output and FFN-up weights are quantized per output column, symmetric int8
  (scale = max|w| / 127), and run as com.microsoft QAttention / DynamicQuantizeMatMul (the
  activations are quantized per call, uint8): onnxruntime's int8 GEMM is most of the saving. The
  FFN down-projection stays float32 but in the last two layers: its input (the GELU output) has
  a long tail that per-tensor uint8 flattens; quantized in every layer, the worst cosine to the
  float32 model fell from 0.995 to 0.987 on 62 real chunks (see INT8_FFN_DOWN);
- attention is the fused QAttention kernel (Q, K, V in one product, the padding mask applied
  inside), so the (batch x 12 x n x n) scores never pass through separate ops;
- LayerNorm, exact-erf GELU, mean pooling and the L2 norm stay float32.

int8 changes the vectors slightly, so `check()` compares them with the float32 numpy model on
fixed texts when the graph is first loaded: if any cosine is under 0.99 (an old CPU whose int8
instructions saturate, say), the float32 graph is used instead. Sessions use one thread each and
batches are spread over a small pool of Python threads: session.run releases the GIL, and one
thread per core wastes nothing on the synchronisation of many small products.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .minilm import DIM

# Layers whose FFN down-projection runs int8 too. Quantizing it in layer i alone (cosine to the
# float32 model, worst of 62 real chunks: 0.9953 with none): i=0 0.9930, 1 0.9949, 2 0.9935,
# 3 0.9942, 4 0.9951, 5 0.9953; {4, 5} 0.9951 for ~7% more chunks per CPU-second, all six 0.9873.
INT8_FFN_DOWN = frozenset({4, 5})
MIN_COSINE = 0.99
# Word pieces per session.run (padded), two full chunks: smaller batches keep the activations in
# the 2 MB L2 (the FFN's 1536-wide hidden state of 8 full chunks is 12.5 MB). Measured on one
# thread, full chunks per CPU-second by rows a batch: 1: 38.6, 2: 39.7, 4: 34.3, 8: 30.5, 16: 26.9.
BATCH_TOKENS = 512
# Texts of fewer word pieces run float32: for them int8 strayed the most (cosine 0.983 for "x"
# padded in a batch, >= 0.996 from ~8 pieces on), and they cost little. Most queries are this
# short, so their vectors are the float32 model's exactly.
EXACT_BELOW = 32
# What the int8 graph is checked on at load: prose, code and a full chunk, each long enough
# (>= EXACT_BELOW pieces) to run int8.
CHECK_TEXTS = (
    "How do I roll back a release when the deploy fails half-way? Run make rollback from the "
    "release folder; it restores the previous build and restarts the services in order.",
    "def lists(elements, *, min_size=0, max_size=None, unique_by=None, unique=False):\n"
    "    check_valid_sizes(min_size, max_size)\n    return ListStrategy(elements, min_size)",
    "The index records the embedding model and its dimension; a different model fails closed. "
    * 12,
)


def ort_reason() -> str | None:
    """None when onnxruntime and onnx are importable, else what is missing."""
    for mod in ("onnxruntime", "onnx"):
        if importlib.util.find_spec(mod) is None:
            return f"{mod} is not installed"
    return None


def workers() -> int:
    """Threads for the forward passes: one per usable core, at most 4."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    return max(1, min(4, n))


class _Graph:
    """The nodes and initializers of the graph being written, with its small building blocks."""

    def __init__(self, weights: dict[str, Any], eps: float, int8: bool) -> None:
        import numpy as np
        from onnx import helper, numpy_helper

        self.np, self.helper, self.numpy_helper = np, helper, numpy_helper
        self.weights, self.eps, self.int8 = weights, eps, int8
        self.inits: list[Any] = []
        self.nodes: list[Any] = []

    def const(self, name: str, arr: Any) -> str:
        self.inits.append(self.numpy_helper.from_array(self.np.asarray(arr), name))
        return name

    def i64(self, name: str, *v: int) -> str:
        return self.const(name, self.np.array(v, dtype=self.np.int64))

    def op(self, kind: str, ins: list[str], domain: str = "", **attrs: Any) -> str:
        out, n = f"t{len(self.nodes)}", len(self.nodes)
        node = self.helper.make_node(kind, ins, [out], name=f"n{n}", domain=domain, **attrs)
        self.nodes.append(node)
        return out

    def quant(self, name: str, w: Any) -> tuple[str, str, str]:
        """Per-column symmetric int8: (weights, scales, zero points)."""
        np = self.np
        scale = np.maximum(np.abs(w).max(axis=0), 1e-8) / 127.0
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        zp = np.zeros(w.shape[1], dtype=np.int8)
        return (
            self.const(name + ".q", q),
            self.const(name + ".s", scale.astype(np.float32)),
            self.const(name + ".z", zp),
        )

    def dense(self, x: str, prefix: str, int8: bool | None = None) -> str:
        w = self.np.ascontiguousarray(self.weights[prefix + ".weight"].T)
        b = self.const(prefix + ".b", self.weights[prefix + ".bias"])
        if self.int8 if int8 is None else int8:
            return self.op("DynamicQuantizeMatMul", [x, *self.quant(prefix, w), b], "com.microsoft")
        return self.op("Add", [self.op("MatMul", [x, self.const(prefix + ".w", w)]), b])

    def norm(self, x: str, prefix: str) -> str:
        g, b = self.weights[prefix + ".weight"], self.weights[prefix + ".bias"]
        ins = [x, self.const(prefix + ".g", g), self.const(prefix + ".beta", b)]
        return self.op("LayerNormalization", ins, axis=-1, epsilon=self.eps)


def _embeddings(g: _Graph, ids: str) -> str:
    """Word + position + token-type-0 embeddings, normalized."""
    w = g.weights
    n = g.op("Slice", [g.op("Shape", [ids]), g.i64("c1", 1), g.i64("c2", 2)])
    pos_table = g.const("pos", w["embeddings.position_embeddings.weight"])
    pos = g.op("Slice", [pos_table, g.i64("c0", 0), n])
    x = g.op("Gather", [g.const("word", w["embeddings.word_embeddings.weight"]), ids])
    type0 = g.const("type0", w["embeddings.token_type_embeddings.weight"][0])
    x = g.op("Add", [g.op("Add", [x, pos]), type0])
    return g.norm(x, "embeddings.LayerNorm")


def _layer(g: _Graph, x: str, i: int, mask32: str, heads: int) -> str:
    """One encoder layer: fused (Q)Attention over Q, K, V in one product, then the FFN."""
    np, w = g.np, g.weights
    p = f"encoder.layer.{i}."
    qkv = [p + f"attention.self.{t}" for t in ("query", "key", "value")]
    wqkv = np.ascontiguousarray(np.concatenate([w[k + ".weight"].T for k in qkv], axis=1))
    b = g.const(p + "qkv.b", np.concatenate([w[k + ".bias"] for k in qkv]))
    if g.int8:
        xq = g.helper.make_node(
            "DynamicQuantizeLinear", [x], [p + "xq", p + "xs", p + "xz"], name=p + "xq"
        )
        g.nodes.append(xq)
        wq, ws, wz = g.quant(p + "qkv", wqkv)
        ins = [p + "xq", wq, b, p + "xs", ws, mask32, p + "xz", wz]
        ctx = g.op("QAttention", ins, "com.microsoft", num_heads=heads)
    else:
        ins = [x, g.const(p + "qkv.w", wqkv), b, mask32]
        ctx = g.op("Attention", ins, "com.microsoft", num_heads=heads)
    x = g.norm(
        g.op("Add", [x, g.dense(ctx, p + "attention.output.dense")]),
        p + "attention.output.LayerNorm",
    )
    h = g.op("Gelu", [g.dense(x, p + "intermediate.dense")], "com.microsoft")
    # the GELU output's long tail loses the most to per-tensor uint8: float32 but in the last
    # layers (INT8_FFN_DOWN)
    down = g.dense(h, p + "output.dense", g.int8 and i in INT8_FFN_DOWN)
    return g.norm(g.op("Add", [x, down]), p + "output.LayerNorm")


def _pool(g: _Graph, x: str, mask: str, float_type: int) -> None:
    """Mean pooling over the unmasked tokens, then the L2 norm, as the `embedding` output."""
    np = g.np
    m = g.op("Unsqueeze", [g.op("Cast", [mask], to=float_type), g.i64("c2b", 2)])
    total = g.op("ReduceSum", [g.op("Mul", [x, m]), g.i64("c1b", 1)], keepdims=0)
    count = g.op("ReduceSum", [m, g.i64("c1c", 1)], keepdims=0)
    pooled = g.op("Div", [total, g.op("Max", [count, g.const("tiny", np.float32(1e-9))])])
    length = g.op("ReduceL2", [pooled, g.i64("c1d", 1)], keepdims=1)
    ins = [pooled, g.op("Max", [length, g.const("tiny2", np.float32(1e-12))])]
    g.nodes.append(g.helper.make_node("Div", ins, ["embedding"], name="out"))


def build_graph(weights: dict[str, Any], heads: int, layers: int, eps: float, int8: bool) -> Any:
    """The ModelProto: input_ids, attention_mask (int64, batch x n) -> embedding (batch x 384)."""
    from onnx import TensorProto, helper

    g = _Graph(weights, eps, int8)
    ids, mask = "input_ids", "attention_mask"
    x = _embeddings(g, ids)
    mask32 = g.op("Cast", [mask], to=TensorProto.INT32)
    for i in range(layers):
        x = _layer(g, x, i, mask32, heads)
    _pool(g, x, mask, TensorProto.FLOAT)
    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "n"]),
            helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "n"]),
        ],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", DIM])],
        g.inits,
    )
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="gg")
    model.ir_version = 8  # what onnxruntime >= 1.15 reads
    return model


def graph_bytes(folder: Path, int8: bool) -> bytes:
    """The serialized graph, built from the extracted weights in ~0.3 s (int8) to ~1 s (float32),
    so nothing but the published model is kept on disk and no stale graph can outlive a change
    to build_graph."""
    import json

    from safetensors.numpy import load_file

    cfg = json.loads((folder / "config.json").read_text())
    model = build_graph(
        load_file(str(folder / "model.safetensors")),
        int(cfg["num_attention_heads"]),
        int(cfg["num_hidden_layers"]),
        float(cfg["layer_norm_eps"]),
        int8,
    )
    return bytes(model.SerializeToString())


class OrtMiniLM:
    """embed(texts) -> float32 (n, 384) unit rows, like minilm.MiniLM, on onnxruntime."""

    def __init__(self, folder: Path, tokenizer: Any, int8: bool = True) -> None:
        import numpy as np

        self.np = np
        self.tok = tokenizer
        self.int8 = int8
        self.folder = folder
        self.session = self._session(int8)
        self._exact: Any = None if int8 else self.session
        self._exact_lock = threading.Lock()
        self.workers = workers()
        self.pool = ThreadPoolExecutor(self.workers, thread_name_prefix="gg-kb-embed")

    def _session(self, int8: bool) -> Any:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # parallel across batches instead (see the module doc)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3  # its warnings are about the graph, not the user's files
        graph = graph_bytes(self.folder, int8)
        return ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])

    def exact(self) -> Any:
        """The float32 session, for short texts (loaded on first use)."""
        with self._exact_lock:
            if self._exact is None:
                self._exact = self._session(False)
            return self._exact

    def _run(self, rows: list[list[int]]) -> Any:
        np = self.np
        n = max(len(r) for r in rows)
        ids = np.zeros((len(rows), n), dtype=np.int64)
        mask = np.zeros((len(rows), n), dtype=np.int64)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            mask[i, : len(r)] = 1
        # a short text (a query, mostly) loses the most to int8 and costs next to nothing
        session = self.exact() if n < EXACT_BELOW else self.session
        return session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]

    def embed(self, texts: list[str]) -> Any:
        """Unit vectors; texts sorted by length into batches of ~BATCH_TOKENS tokens (little
        padding), the batches run on the pool."""
        np = self.np
        encs = [e.ids for e in self.tok.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda i: len(encs[i]))
        # at most BATCH_TOKENS (padded) a batch, at least one batch per worker, and texts of
        # near lengths together: padding rows cost time and, being in the tensor, widen the
        # range its int8 quantization must cover
        most = max(1, -(-len(texts) // self.workers))
        groups: list[list[int]] = []
        for i in order:
            g = groups[-1] if groups else []
            n = len(encs[i])
            if (
                g
                and len(g) < most
                and n * (len(g) + 1) <= BATCH_TOKENS
                and n <= len(encs[g[0]]) * 1.25 + 8
            ):
                g.append(i)
            else:
                groups.append([i])
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        run: Callable[[list[int]], Any] = lambda g: self._run([encs[i] for i in g])  # noqa: E731
        for g, vecs in zip(groups, self.pool.map(run, groups), strict=True):
            out[g] = vecs
        return out


def check(fast: Any, reference: Any) -> float:
    """The smallest cosine between the two models' vectors of CHECK_TEXTS."""
    a, b = fast.embed(list(CHECK_TEXTS)), reference.embed(list(CHECK_TEXTS))
    return float((a * b).sum(axis=1).min())
