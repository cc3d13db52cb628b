"""lsprotocol's pre-built image (ggd/daemon/lspimage.py, lspbuild.py): what it makes, and when."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

# Describes lsprotocol.types as deeply as the daemon could observe it: every name; each attrs
# class's dict, fields (all their properties) and generated functions (code, defaults, closure
# contents, the globals their code uses); enums' members; and pygls' converter: the (un)structure
# code cattrs generates for every class, and a real handshake's round trip.
DESCRIBE = r"""
import json, linecache, re, sys, types, enum
from pathlib import Path
if sys.argv[1] != "real":
    from ggd.daemon import lspimage
    lspimage.load(Path(sys.argv[1]))
import attrs
import lsprotocol.types as t
# The image holds the classes as lsprotocol's converter leaves them, string types resolved;
# every ggd start makes that converter in its start-up window.
from lsprotocol import _hooks
_hooks._resolve_forward_references()
ADDR = re.compile(r" at 0x[0-9a-fA-F]+")
def r(o): return ADDR.sub("", repr(o))
def fn(f):
    c = f.__code__
    used = {n: r(f.__globals__[n]) for n in sorted(c.co_names) if n in f.__globals__}
    cells = [r(x.cell_contents) for x in (f.__closure__ or ())]
    return [f.__qualname__, f.__module__, f.__doc__, c.co_code.hex(), r(c.co_consts),
            list(c.co_names), c.co_filename, c.co_firstlineno, r(f.__defaults__),
            r(f.__kwdefaults__), r(f.__annotations__), used, cells]
out = {}
for k, v in vars(t).items():
    if k in ("__loader__", "__spec__", "__builtins__", "__cached__"):
        continue
    if isinstance(v, type) and attrs.has(v):
        d = {}
        for kk, vv in vars(v).items():
            if isinstance(vv, types.FunctionType):
                d[kk] = fn(vv)
            elif kk == "__attrs_attrs__":
                d[kk] = [type(vv).__name__, [r(a) for a in vv], [r(getattr(vv, a.name)) for a in vv]]
            else:
                d[kk] = [type(vv).__name__, r(vv)]
        out[k] = ["attrs", v.__qualname__, v.__module__, r(v.__mro__), d]
    elif isinstance(v, enum.EnumMeta):
        out[k] = ["enum", r(v.__mro__), [(m.name, r(m.value)) for m in v], v.__doc__, sorted(vars(v))]
    elif isinstance(v, types.FunctionType):
        out[k] = ["function"] + fn(v)
    elif isinstance(v, type):
        out[k] = ["class", r(v.__mro__), sorted(vars(v))]
    else:
        out[k] = [type(v).__name__, r(v)]
from pygls.protocol import default_converter
conv = default_converter()
hooks = {}
for k, v in vars(t).items():
    if isinstance(v, type) and attrs.has(v):
        errors = []
        for get in (conv.get_structure_hook, conv.get_unstructure_hook):
            try:
                get(v)
            except Exception as e:
                errors.append(r(e))
        hooks[k] = [r(a.type) for a in attrs.fields(v)] + errors
scripts = sorted(ADDR.sub("", "".join(lines)) for name, (_, _, lines, _) in linecache.cache.items()
                 if name.startswith("<cattrs generated"))
params = {"processId": 7, "rootUri": None, "capabilities": {"textDocument": {"hover": {
    "contentFormat": ["markdown"]}}, "general": {"positionEncodings": ["utf-16"]}},
    "clientInfo": {"name": "gg", "version": "1"}, "workspaceFolders": [{"uri": "file:///w", "name": "w"}]}
init = conv.structure(params, t.InitializeParams)
result = t.InitializeResult(capabilities=t.ServerCapabilities(
    position_encoding=t.PositionEncodingKind.Utf16, hover_provider=True,
    execute_command_provider=t.ExecuteCommandOptions(commands=["gg.ask"])),
    server_info=t.ServerInfo(name="ggd", version="1"))
print(json.dumps({
    "loader": type(t.__spec__.loader).__name__,
    "names": out,
    "hooks": hooks,
    "scripts": scripts,
    "round_trip": [conv.unstructure(init), conv.unstructure(result), r(init),
                   init == conv.structure(params, t.InitializeParams),
                   t.Position(1, 2) < t.Position(1, 3)],
}))
"""

# A start's first steps, as `ggd` takes them: what became of lsprotocol and its image.
PROBE = r"""
import json, sys
from ggd.daemon import lspimage
from ggd.daemon.main import _import_app
_import_app()
t = sys.modules["lsprotocol.types"]
print(json.dumps({"outcome": lspimage.outcome, "loader": type(t.__spec__.loader).__name__,
                  "position": repr(t.Position(line=1, character=2))}))
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GG_CODE_CACHE_DIR", "GG_LSP_IMAGE")}
    env.update(extra)
    return env


def _run(script: str, *args: str, **env: str) -> Any:
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _build(folder: Path, *, patch: str = "") -> subprocess.CompletedProcess[str]:
    script = f"from ggd.daemon import lspbuild\n{patch}\nraise SystemExit(lspbuild.main())"
    return subprocess.run(
        [sys.executable, "-c", script, str(folder)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )


def _image(folder: Path) -> Path:
    found = list(folder.glob("lsp-types.*.bin"))
    assert len(found) == 1, found
    return found[0]


def _payload(path: Path) -> tuple[bytes, tuple[Any, ...]]:
    from ggd.daemon.lspimage import HEADER, MAGIC

    data = path.read_bytes()
    prefix = HEADER + MAGIC
    assert data.startswith(prefix)
    return prefix, marshal.loads(data[len(prefix) :])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lsp-image")
    done = _build(folder)
    assert done.returncode == 0, done.stderr
    return folder


def test_the_image_remakes_lsprotocol_types_as_attrs_made_it(built: Path) -> None:
    real = _run(DESCRIBE, "real")
    image = _run(DESCRIBE, str(built))
    assert real["loader"] == "SourceFileLoader" and image["loader"] == "ImageLoader"
    assert image["names"].keys() == real["names"].keys()
    differ = [k for k in real["names"] if real["names"][k] != image["names"][k]]
    assert differ == []
    assert image["hooks"] == real["hooks"]
    # cattrs wrote the same (un)structure code for every class from the image's fields.
    assert len(image["scripts"]) > 500 and image["scripts"] == real["scripts"]
    assert image["round_trip"] == real["round_trip"]
    assert image["round_trip"][3:] == [True, True]


def test_the_image_is_owner_only_and_keyed_by_what_it_was_made_from(built: Path) -> None:
    path = _image(built)
    assert path.stat().st_mode & 0o777 == 0o600
    from ggd.daemon import lspimage

    _, payload = _payload(path)
    assert payload[0] == lspimage.key(lspimage.types_origin())


def test_a_start_builds_the_image_and_the_next_start_is_made_from_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    first = _run(PROBE, GG_HOME=str(home))
    assert first["outcome"] == "absent" and first["loader"] == "SourceFileLoader"
    deadline = time.monotonic() + 60
    marker = home / "cache" / f".lsp-types.{sys.implementation.cache_tag}.bin.building"
    while time.monotonic() < deadline and (marker.exists() or not list(home.glob("cache/lsp-*"))):
        time.sleep(0.1)
    assert not marker.exists(), "the builder did not finish"
    second = _run(PROBE, GG_HOME=str(home))
    assert second == {
        "outcome": "loaded",
        "loader": "ImageLoader",
        "position": first["position"],
    }
    # The off switch: the normal import, and no builder.
    off = _run(PROBE, GG_HOME=str(home), GG_LSP_IMAGE="off")
    assert off["outcome"] == "skipped" and off["loader"] == "SourceFileLoader"


LOAD = r"""
import json, sys
from pathlib import Path
from ggd.daemon import lspimage
folder = Path(sys.argv[1])
module = lspimage.load(folder)
import lsprotocol.types as t
print(json.dumps({"outcome": lspimage.outcome, "loaded": module is not None,
                  "loader": type(t.__spec__.loader).__name__, "builds": lspimage.build_later(folder),
                  "resolved": getattr(t.InitializeParams, "__attrs_types_resolved__", None)
                  is t.InitializeParams,
                  "position": repr(t.Position(line=1, character=2))}))
"""


def _copy(built: Path, tmp_path: Path, data: bytes | None = None) -> tuple[Path, Path]:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    path = folder / _image(built).name
    path.write_bytes(_image(built).read_bytes() if data is None else data)
    path.chmod(0o600)
    return folder, path


def test_a_valid_copy_loads_and_builds_nothing(built: Path, tmp_path: Path) -> None:
    folder, _ = _copy(built, tmp_path)
    facts = _run(LOAD, str(folder))
    assert facts["outcome"] == "loaded" and facts["loader"] == "ImageLoader"
    assert facts["builds"] is False
    # Its string types are resolved already: the converter every start makes skips that step.
    assert facts["resolved"] is True


@pytest.mark.parametrize("damage", ["torn", "garbage", "stale"])
def test_a_torn_corrupt_or_old_image_is_the_normal_import_and_a_rebuild(
    built: Path, tmp_path: Path, damage: str
) -> None:
    good = _image(built).read_bytes()
    if damage == "torn":
        data = good[: len(good) // 2]
    elif damage == "garbage":
        data = b"\0" * 64
    else:
        prefix, payload = _payload(_image(built))
        old = (payload[0][0] + 1, *payload[0][1:])  # another format, attrs or lsprotocol
        data = prefix + marshal.dumps((old, *payload[1:]))
    folder, _ = _copy(built, tmp_path, data)
    facts = _run(LOAD, str(folder))
    expected = {"torn": "corrupt", "garbage": "corrupt", "stale": "stale"}[damage]
    assert facts["outcome"] == expected and not facts["loaded"]
    assert facts["loader"] == "SourceFileLoader" and facts["position"]
    assert facts["resolved"] is False
    assert facts["builds"] is True  # a detached builder writes a fresh image
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _run(LOAD, str(folder))["outcome"] != "loaded":
        time.sleep(0.5)
    assert _run(LOAD, str(folder))["outcome"] == "loaded"


def test_an_image_others_may_write_is_never_run(built: Path, tmp_path: Path) -> None:
    folder, path = _copy(built, tmp_path)
    path.chmod(0o666)
    facts = _run(LOAD, str(folder))
    assert facts["outcome"] == "untrusted" and facts["loader"] == "SourceFileLoader"
    assert facts["builds"] is False  # nor replaced in a folder that is not only ours


def test_an_image_that_fails_to_load_disables_itself(built: Path, tmp_path: Path) -> None:
    prefix, payload = _payload(_image(built))
    broken = prefix + marshal.dumps((*payload[:4], b"not a pickle"))
    folder, path = _copy(built, tmp_path, broken)
    facts = _run(LOAD, str(folder))
    assert facts["outcome"] == "failed" and facts["loader"] == "SourceFileLoader"
    assert facts["builds"] is False
    # The next start neither tries it again nor starts a builder: the same image would fail.
    again = _run(LOAD, str(folder))
    assert again["outcome"] == "disabled" and again["builds"] is False
    assert path.stat().st_mode & 0o777 == 0o600


LOSSY = (  # a pickler that loses each class's __repr__
    "_reduce = lspbuild._class_reduce\n"
    "def _lossy(cls):\n"
    "    f, args, state = _reduce(cls)\n"
    "    state[1].pop('__repr__', None)\n"
    "    return f, args, state\n"
    "lspbuild._class_reduce = _lossy\n"
)
UNPICKLABLE = (  # an lsprotocol with something the pickler cannot take
    "def _refuse(cls):\n"
    "    raise TypeError(f'cannot pickle {cls.__name__}')\n"
    "lspbuild._class_reduce = _refuse\n"
)


@pytest.mark.parametrize(("patch", "says"), [(LOSSY, "does not remake"), (UNPICKLABLE, "cannot")])
def test_the_builder_writes_no_image_that_does_not_remake_the_module(
    tmp_path: Path, patch: str, says: str
) -> None:
    # The check against the real module, or the pickler, fails: starts then import normally.
    done = _build(tmp_path, patch=patch)
    assert done.returncode == 1 and says in done.stderr
    facts = _run(LOAD, str(tmp_path))
    assert facts["outcome"] == "disabled" and facts["loader"] == "SourceFileLoader"
    assert facts["builds"] is False
