"""The onnxruntime MiniLM (int8) against the float32 numpy model: the same vectors within
cosine 0.99 on real text, built once into a private file, chosen by the local embedder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ggd.capabilities.kb.minilm import DIM, local_model_reason
from ggd.capabilities.kb.minilm_ort import ort_reason

pytestmark = [
    pytest.mark.skipif(local_model_reason() is not None, reason="kb-local not installed"),
    pytest.mark.skipif(ort_reason() is not None, reason="onnxruntime not installed"),
]

REPO = Path(__file__).resolve().parents[4]
DOCS = REPO / "docs"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from ggd.capabilities.kb.minilm import MiniLM, ensure_extracted
    from ggd.capabilities.kb.minilm_ort import OrtMiniLM

    home = tmp_path_factory.mktemp("home")
    folder = ensure_extracted(home)
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


def test_no_graph_is_left_on_disk(models: dict[str, Any]) -> None:
    # built in memory from the extracted weights: only the published model's files are kept
    files = {p.relative_to(models["folder"]).as_posix() for p in models["folder"].rglob("*")}
    assert files == {
        "model.safetensors",
        "tokenizer.json",
        "config.json",
        "1_Pooling",
        "1_Pooling/config.json",
    }


def test_the_local_embedder_runs_the_checked_int8_graph(tmp_path: Path) -> None:
    from ggd.capabilities.kb.embed import load_local
    from ggd.capabilities.kb.minilm_ort import OrtMiniLM

    model, variant = load_local(tmp_path)
    assert isinstance(model, OrtMiniLM) and model.int8
    assert variant.startswith("onnxruntime int8 (cosine to float32 >= 0.99")


def test_a_broken_onnxruntime_falls_back_to_the_numpy_model(
    models: dict[str, Any], tmp_path: Path
) -> None:
    # a real process whose onnxruntime is importable by name but broken (a shadowing package
    # first on PYTHONPATH), as a half-installed or wrong-platform wheel would be
    broken = tmp_path / "broken" / "onnxruntime"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('libonnxruntime.so: cannot open')\n")
    home = tmp_path / "home"
    shutil.copytree(models["folder"].parent.parent.parent, home)  # GG_HOME with the model
    code = (
        "import sys; from pathlib import Path\n"
        "from ggd.capabilities.kb.embed import load_local\n"
        "m, variant = load_local(Path(sys.argv[1]))\n"
        "print(variant, m.embed(['a cat sits on the mat']).shape)\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{broken.parent}{os.pathsep}{REPO}"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"numpy float32 (1, {DIM})"
    assert "onnxruntime MiniLM unavailable" in out.stderr and "cannot open" in out.stderr
