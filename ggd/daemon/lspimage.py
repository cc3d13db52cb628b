"""A pre-built `lsprotocol.types`: its ~550 attrs classes as attrs made them, without attrs' work.

pygls' LSP types are one module of 554 `@attrs.define` classes. Even with their generated code
from the code cache (codecache.py), attrs' class machinery (fields, the slotted copy of each
class, its Attribute tuple class, a copy of the module namespace per class) was ~100-120 ms of
every start, the largest single item of a cold start. What it makes depends only on
lsprotocol's source and attrs', so the finished module is kept: `lspbuild.py`, in a process of
its own, imports it the normal way and pickles its namespace by value into
`GG_HOME/cache/lsp-types.<python>.bin`. A start with a valid image runs the module's leading
imports and then one C unpickle remakes everything else (~45-50 ms).

The image is keyed by its format, the Python's bytecode magic and the identity of attrs' and
lsprotocol's sources; a missing, foreign, corrupt, old or untrusted file, or any error while
loading, is the normal import, never an error. It holds code this process runs: it lives in the
owner-only cache beside the code cache, written and read under the same ownership checks.
docs/internals.md "ggd start-up" has the whole story, including the two deliberate differences
from attrs' own classes (trimmed method globals, no generated source in linecache).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import io
import marshal
import os
import sys
import time
import types
from pathlib import Path
from typing import Any, Literal

MODULE = "lsprotocol.types"
FORMAT = 1
MAGIC = importlib.util.MAGIC_NUMBER
HEADER = b"gg-lsp-image\0"
# A build that started this recently is taken to be still running (no second builder).
_BUILD_GRACE_S = 120.0

Outcome = Literal[
    "loaded", "absent", "stale", "corrupt", "untrusted", "disabled", "failed", "skipped"
]
# How the last load() went: a builder is started only for an image that is missing or old.
outcome: Outcome = "skipped"


def image_path(folder: Path) -> Path:
    tag = sys.implementation.cache_tag or "py"
    return folder / f"lsp-types.{tag}.bin"


def _stat_key(path: str | None) -> tuple[str, int, int] | None:
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (path, st.st_size, st.st_mtime_ns)


def key(types_origin: str | None) -> tuple[Any, ...]:
    """What an image is valid for: the format, the Python, attrs' and lsprotocol's sources (an
    upgrade rewrites them). Not `attr.__version__`: attrs reads that from importlib.metadata."""
    import attr
    import attr._make

    return (
        FORMAT,
        MAGIC,
        _stat_key(attr.__file__),
        _stat_key(attr._make.__file__),
        _stat_key(types_origin),
    )


def types_origin() -> str | None:
    """lsprotocol/types.py, found without importing it."""
    with contextlib.suppress(ImportError, ValueError):
        spec = importlib.util.find_spec(MODULE)
        return None if spec is None else spec.origin
    return None


def run_class(namespace: dict[str, Any], code: types.CodeType, name: str) -> type:
    """An enum, made by its own class statement in the module's namespace (and taken out of it
    again, so the namespace gets it in lsprotocol's order). The image's pickles call this."""
    exec(code, namespace)
    cls = namespace.pop(name)
    if not isinstance(cls, type):
        raise ImportError(f"{name} is not a class")
    return cls


Image = tuple[types.CodeType, list[str], list[types.CodeType], bytes]


def _read(path: Path, origin: str | None) -> Image | Outcome:
    from .codecache import read_cache

    try:
        data = read_cache(path)
    except FileNotFoundError:
        return "absent"
    except OSError:
        return "untrusted"
    prefix = HEADER + MAGIC
    if not data.startswith(prefix):
        return "corrupt"
    try:
        loaded = marshal.loads(memoryview(data)[len(prefix) :])
    except (EOFError, ValueError, TypeError):
        return "corrupt"
    if not (isinstance(loaded, tuple) and len(loaded) == 5):
        return "corrupt"
    image_key, code, modules, codes, blob = loaded
    if image_key != key(origin):
        return "stale"
    if code is None:  # the builder found its image does not make this lsprotocol
        return "disabled"
    if not (
        isinstance(code, types.CodeType)
        and isinstance(modules, list)
        and all(isinstance(m, str) for m in modules)
        and isinstance(codes, list)
        and all(type(c) is types.CodeType for c in codes)
        and isinstance(blob, bytes)
    ):
        return "corrupt"
    return code, modules, codes, blob


class ImageLoader:
    """Makes lsprotocol.types from its image: the module's imports, then its pickled namespace."""

    def __init__(self, image: Image) -> None:
        self.code, self.modules, self.codes, self.blob = image

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        import _pickle  # the C unpickler; pickle.py itself is not needed to load

        namespace = vars(module)
        exec(self.code, namespace)
        # Persistent ids: the module's own namespace, other modules' namespaces by name, and
        # code objects by their index in the image's one marshal.
        known: dict[Any, Any] = dict(enumerate(self.codes))
        known["\0"] = namespace
        for name in self.modules:
            known[name] = vars(importlib.import_module(name))
        unpickler = _pickle.Unpickler(io.BytesIO(self.blob))
        unpickler.persistent_load = known.__getitem__  # type: ignore[method-assign]
        values = unpickler.load()
        if not isinstance(values, dict):
            raise ImportError("not an lsprotocol image")
        namespace.update(values)


def load(folder: Path | None) -> types.ModuleType | None:
    """lsprotocol.types made from a valid image in `folder` and put in sys.modules, else None.

    None leaves the import system as it was: the next import of lsprotocol is the normal one.
    `outcome` says why (a missing or old image is what `build_later` then rebuilds).
    """
    global outcome
    outcome = "skipped"
    if folder is None or MODULE in sys.modules or os.environ.get("GG_LSP_IMAGE") == "off":
        return None
    origin = types_origin()
    if origin is None:
        return None
    image = _read(image_path(folder), origin)
    if isinstance(image, str):
        outcome = image
        return None
    loader = ImageLoader(image)
    spec = importlib.util.spec_from_file_location(MODULE, origin, loader=loader)  # type: ignore[arg-type]
    if spec is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE] = module
    try:
        loader.exec_module(module)
    except Exception:  # an image that does not fit after all: the normal import follows
        sys.modules.pop(MODULE, None)
        outcome = "failed"
        disable(folder, origin)
        return None
    parent = sys.modules.get(MODULE.rpartition(".")[0])
    if parent is not None:
        parent.types = module  # type: ignore[attr-defined]
    outcome = "loaded"
    return module


def disable(folder: Path, origin: str | None) -> None:
    """Record that no image serves this key: starts import lsprotocol normally and build none."""
    from .codecache import write_cache

    with contextlib.suppress(OSError):
        write_cache(
            image_path(folder),
            HEADER + MAGIC + marshal.dumps((key(origin), None, None, None, None)),
        )


def build_later(folder: Path | None) -> bool:
    """Start `python -m ggd.daemon.lspbuild FOLDER` when the last load found no usable image.

    Only for an image that is missing, old or corrupt (an untrusted folder or a disabled key is
    left alone), and not while another start's build is under way. The builder runs detached
    at low priority; this start goes on with the normal import it already made.
    """
    if folder is None or outcome not in ("absent", "stale", "corrupt"):
        return False
    marker = folder / f".{image_path(folder).name}.building"
    try:
        if time.time() - marker.stat().st_mtime < _BUILD_GRACE_S:
            return False
    except OSError:
        pass
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        marker.touch(mode=0o600)
    except OSError:
        return False
    import subprocess
    import threading

    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "ggd.daemon.lspbuild", str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    # Reaped when it ends, so a long-lived daemon keeps no zombie.
    threading.Thread(target=child.wait, name="gg-lsp-image", daemon=True).start()
    return True


__all__ = ["ImageLoader", "build_later", "image_path", "key", "load", "outcome"]
