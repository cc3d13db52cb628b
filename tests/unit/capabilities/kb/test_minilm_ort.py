"""The onnxruntime MiniLM (int8) against the float32 numpy model: the same vectors within
cosine 0.99 on real text, built once into a private file, chosen by the local embedder."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from ggd.capabilities.kb.minilm import DIM, local_model_reason
from ggd.capabilities.kb.minilm_ort import ort_reason

pytestmark = [
    pytest.mark.skipif(local_model_reason() is not None, reason="kb-local not installed"),
    pytest.mark.skipif(ort_reason() is not None, reason="onnxruntime not installed"),
]

DOCS = Path(__file__).resolve().parents[4] / "docs"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from ggd.capabilities.kb.minilm import MiniLM, ensure_extracted
    from ggd.capabilities.kb.minilm_ort import OrtMiniLM

    home = tmp_path_factory.mktemp("home")
    folder = ensure_extracted(home)
    (folder / "minilm-int8-v0.onnx").write_bytes(b"an older gg's graph")
    ref = MiniLM(folder)
    return {
        "folder": folder,
        "ref": ref,
        "int8": OrtMiniLM(folder, ref.tok, int8=True),
        "fp32": OrtMiniLM(folder, ref.tok, int8=False),
    }


def _texts() -> list[str]:
    # real prose and code of every length up to the 256-token cut (1,200-character chunks)
    out = [p.read_text()[:1200] for p in sorted(DOCS.glob("*.md"))[:12]]
    src = Path(__file__).resolve().parents[4] / "ggd" / "capabilities" / "kb"
    out += [p.read_text()[:1200] for p in sorted(src.glob("*.py"))[:6]]
    return [*out, "a cat sits on the mat", "how do I roll back a release", "x"]


def test_int8_vectors_are_the_float32_models(models: dict[str, Any]) -> None:
    texts = _texts()
    ref = models["ref"].embed(texts)
    for kind, floor in (("int8", 0.99), ("fp32", 0.9999)):
        got = models[kind].embed(texts)
        assert got.shape == (len(texts), DIM)
        assert abs(float((got**2).sum(axis=1).min()) - 1) < 1e-4  # unit rows
        cos = (got * ref).sum(axis=1)
        assert float(cos.min()) >= floor, (kind, cos.min())
    # texts under EXACT_BELOW word pieces (queries, mostly) run float32: the same vectors
    short = [i for i, t in enumerate(texts) if len(t) < 40]
    assert (
        float((models["int8"].embed([texts[i] for i in short]) * ref[short]).sum(1).min()) > 0.9999
    )
    # the paraphrase test of the numpy model holds for the fast one too
    v = models["int8"].embed(
        ["a cat sits on the mat", "a kitten is sitting on a mat", "stock prices fell"]
    )
    assert float(v[0] @ v[1]) > 0.7 and float(v[0] @ v[2]) < 0.3


def test_order_and_batching_keep_each_texts_vector(models: dict[str, Any]) -> None:
    texts = _texts()
    m = models["int8"]
    together = m.embed(texts)
    alone = m.embed(texts[3:4])
    backwards = m.embed(texts[::-1])[::-1]
    assert float(together[3] @ alone[0]) > 0.99  # activations are quantized per batch
    assert float((together * backwards).sum(axis=1).min()) > 0.99
    assert m.embed([]).shape == (0, DIM)


def test_the_graph_is_built_once_into_a_private_file(models: dict[str, Any]) -> None:
    from ggd.capabilities.kb.minilm_ort import GRAPH_VERSION, ensure_graph

    folder = models["folder"]
    path = folder / f"minilm-int8-v{GRAPH_VERSION}.onnx"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    before = path.stat().st_mtime_ns
    assert ensure_graph(folder, True) == path
    assert path.stat().st_mtime_ns == before
    assert not [p for p in folder.iterdir() if p.name.startswith(".graph-")]
    assert not (folder / "minilm-int8-v0.onnx").exists()  # replaced, not left behind


def test_the_local_embedder_runs_the_checked_int8_graph(tmp_path: Path) -> None:
    from ggd.capabilities.kb.embed import load_local
    from ggd.capabilities.kb.minilm_ort import OrtMiniLM

    model, variant = load_local(tmp_path)
    assert isinstance(model, OrtMiniLM) and model.int8
    assert variant.startswith("onnxruntime int8 (cosine to float32 >= 0.99")


def test_a_broken_graph_file_falls_back_to_the_numpy_model(
    models: dict[str, Any], tmp_path: Path
) -> None:
    import shutil

    from ggd.capabilities.kb.embed import load_local
    from ggd.capabilities.kb.minilm import MiniLM, model_dir
    from ggd.capabilities.kb.minilm_ort import GRAPH_VERSION

    folder = model_dir(tmp_path)
    shutil.copytree(models["folder"], folder)
    (folder / f"minilm-int8-v{GRAPH_VERSION}.onnx").write_bytes(b"not a model")
    model, variant = load_local(tmp_path)
    assert isinstance(model, MiniLM) and variant == "numpy float32"
    assert model.embed(["a cat sits on the mat"]).shape == (1, DIM)
