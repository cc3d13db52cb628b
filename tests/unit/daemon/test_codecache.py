"""The start-up code cache: generated attrs and dataclass methods come back from GG_HOME/cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ggd.daemon.codecache import CodeCache, startup_code_cache

# Imports lsprotocol.types under the cache in a fresh interpreter (this one may have it already)
# and reports what the cache did plus facts about the classes attrs built.
PROBE = """
import json, sys
from pathlib import Path
from ggd.daemon.codecache import startup_code_cache
import attr._make
import dataclasses
import typing
with startup_code_cache(Path(sys.argv[1])) as cache:
    from lsprotocol import types as lsp

    before = cache.misses if cache else 0
    # A forward reference, as pydantic makes of a string annotation; twice in one start.
    refs = [typing.ForwardRef("dict[str, int] | None") for _ in range(2)]
    ref_misses = (cache.misses - before) if cache else None

    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        label: str = "a"
p = Point(1)
try:
    p.x = 2
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
from pygls.protocol import default_converter
conv = default_converter()
params = conv.structure(
    {"processId": 7, "rootUri": None, "capabilities": {"general": {"positionEncodings": ["utf-8"]}}},
    lsp.InitializeParams,
)
pos = lsp.Position(line=1, character=2)
print(json.dumps({
    "active": cache is not None,
    "misses": cache.misses if cache else None,
    "used": len(cache.used) if cache else None,
    "patched_after": "compile" in vars(attr._make) or "exec" in vars(dataclasses)
    or "compile" in vars(typing),
    "ref_misses": ref_misses,
    "ref": repr(typing._eval_type(refs[1], {}, {})),
    "dc": [repr(p), p == Point(1, "a"), p < Point(2), frozen, hash(p) == hash(Point(1))],
    "repr": repr(lsp.WorkDoneProgressCancelParams(token="t")),
    "eq": pos == lsp.Position(line=1, character=2) and pos != lsp.Position(line=1, character=3),
    "pid": params.process_id,
    "enc": [str(e) for e in params.capabilities.general.position_encodings],
    "init_file": lsp.Position.__init__.__code__.co_filename,
}))
"""


def _probe(home: Path, shared: Path | None = None, probe: str = PROBE) -> dict[str, object]:
    """What a probe prints, run in a fresh interpreter with home as its argument."""
    env = {k: v for k, v in os.environ.items() if k != "GG_CODE_CACHE_DIR"}
    if shared is not None:
        env["GG_CODE_CACHE_DIR"] = str(shared)
    out = subprocess.run(
        [sys.executable, "-c", probe, str(home)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout)


def _cache_file(home: Path) -> Path:
    (found,) = (home / "cache").glob("startup-code.*.bin")
    return found


def test_a_second_start_compiles_nothing_and_builds_the_same_classes(tmp_path: Path) -> None:
    first = _probe(tmp_path)
    assert first["active"] and first["misses"] >= first["used"] > 300
    cache = _cache_file(tmp_path)
    assert cache.stat().st_mode & 0o077 == 0  # owner-only, like the rest of GG_HOME
    second = _probe(tmp_path)
    # Only source that differs per process (a frozen attrs class's __hash__ embeds the
    # randomized string hash of its name) still compiles; it is remembered as volatile...
    assert second["misses"] <= 2 and second["used"] == first["used"]
    written = cache.stat().st_mtime_ns
    third = _probe(tmp_path)
    assert third["misses"] == second["misses"]
    assert cache.stat().st_mtime_ns == written  # ...so later starts do not rewrite the file
    for key in ("repr", "eq", "pid", "enc", "init_file", "dc"):
        assert second[key] == first[key]
    assert second["repr"] == "WorkDoneProgressCancelParams(token='t')" and second["eq"] is True
    assert second["pid"] == 7 and second["enc"] == ["utf-8"]
    assert second["dc"] == ["Point(x=1, label='a')", True, True, True, True]
    assert not second["patched_after"]  # the builtins are back once the imports are done
    # A forward reference compiles once per start at most (here not at all: it is stored).
    assert first["ref_misses"] == 1 and second["ref_misses"] == 0
    assert second["ref"] == first["ref"] == "dict[str, int] | None"


def test_a_corrupt_or_foreign_cache_is_a_cold_start_then_rewritten(tmp_path: Path) -> None:
    used = _probe(tmp_path)["used"]
    cache = _cache_file(tmp_path)
    for junk in (b"", b"not a cache at all", cache.read_bytes()[:4] + b"\x00garbage"):
        cache.write_bytes(junk)
        again = _probe(tmp_path)
        assert again["misses"] >= used and again["eq"] is True
        assert _probe(tmp_path)["misses"] <= 2


def test_a_cache_others_could_have_written_is_never_run(tmp_path: Path) -> None:
    used = _probe(tmp_path)["used"]
    cache = _cache_file(tmp_path)
    assert cache.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700
    cache.chmod(0o666)
    # Group- or world-writable: every method is compiled afresh, none is loaded, and the start
    # replaces it with an owner-only file of its own.
    assert _probe(tmp_path)["misses"] >= used
    assert _cache_file(tmp_path).stat().st_mode & 0o777 == 0o600
    folder = tmp_path / "cache"
    folder.chmod(0o777)
    before = cache.read_bytes()
    assert _probe(tmp_path)["misses"] >= used
    # In a folder others can write, nothing is written either.
    assert sorted(p.name for p in folder.iterdir()) == [cache.name]
    assert cache.read_bytes() == before
    folder.chmod(0o700)
    assert _probe(tmp_path)["misses"] <= 2


def test_without_a_gg_home_nothing_is_patched_or_written(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = _probe(missing)
    assert result["active"] is False and result["eq"] is True
    assert not missing.exists()


def test_an_unwritable_cache_folder_is_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder should be")
    result = _probe(tmp_path)
    assert result["active"] and result["eq"] is True
    assert (tmp_path / "cache").read_text() == "a file where the folder should be"


def test_other_compile_calls_pass_through_and_stale_entries_are_pruned(tmp_path: Path) -> None:
    path = tmp_path / "c.bin"
    cache = CodeCache(path)
    ns: dict[str, object] = {}
    exec(cache.compile("def f(x):\n    return x + 1\n", "<gen f>", 0), ns)
    exec(cache.compile("def g(x):\n    return x * 2\n", "<gen g>", 0), ns)
    cache.save()
    reloaded = CodeCache(path)
    ns2: dict[str, object] = {}
    exec(reloaded.compile("def f(x):\n    return x + 1\n", "<gen f>", 0), ns2)
    assert reloaded.misses == 0 and ns2["f"](1) == 2  # type: ignore[operator]
    reloaded.save()  # nothing new: the file is left as it was
    assert len(CodeCache(path).stored) == 2
    with startup_code_cache(tmp_path) as active:
        import attr._make as make

        patched = vars(make)["compile"]
        code = patched("1 + 1", "<expr>", "eval")  # not attrs' exec shape: the builtin answers
        assert eval(code) == 2 and active is not None and active.misses == 0


def test_a_mostly_unused_cache_is_pruned_to_what_the_start_used(tmp_path: Path) -> None:
    path = tmp_path / "c.bin"
    old = CodeCache(path)
    for i in range(10):
        old.compile(f"def f{i}():\n    return {i}\n", f"<gen f{i}>", 0)
    old.save()
    upgraded = CodeCache(path)  # as after a library upgrade: none of the old code is asked for
    upgraded.compile("def g():\n    return 1\n", "<gen g>", 0)
    upgraded.save()
    assert len(CodeCache(path).stored) == 1


def test_gg_code_cache_dir_lets_many_gg_homes_share_one_cache(tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "code"
    homes = [tmp_path / "a", tmp_path / "b"]
    for home in homes:
        home.mkdir()
    first = _probe(homes[0], shared)
    second = _probe(homes[1], shared)  # a fresh GG_HOME, the cache already warm
    assert first["misses"] >= first["used"] and second["misses"] <= 2
    assert list(shared.glob("startup-code.*.bin"))
    assert not any((home / "cache").exists() for home in homes)


# Compiles a few patterns under the cache in a fresh interpreter (re keeps its own per-process
# cache) and reports how many re had to parse in Python, and whether each came out as re's own.
RE_PROBE = r"""
import json, re, sys
from pathlib import Path
from re import _compiler, _parser
from ggd.daemon.codecache import startup_code_cache
PATTERNS = [
    (r"(?P<key>[A-Za-z_]+)=(?P<value>\d+)", 0),
    ("ünï(?:code)?\\b", re.IGNORECASE),
    (rb"\x00[\x01-\x7f]+", 0),
    (r"(?<=a)b  # a comment", re.VERBOSE),
    (r"^\s*(\w+)?$", re.MULTILINE | re.ASCII),
]
parsed = []
real_parse = _parser.parse
def parse(*args, **kwargs):
    parsed.append(args[0])
    return real_parse(*args, **kwargs)
_parser.parse = parse
with startup_code_cache(Path(sys.argv[1])) as cache:
    before = len(parsed)  # entering it imports attrs and cattrs, whose patterns do not count
    got = [re.compile(p, f) for p, f in PATTERNS]
    ours = len(parsed) - before
_parser.parse = real_parse
want = [_compiler.compile(p, f) for p, f in PATTERNS]  # re's own, compiled afresh
print(json.dumps({
    "parsed": ours,
    "same": [g == w and g.groupindex == w.groupindex and g.groups == w.groups and g.flags == w.flags
             for g, w in zip(got, want)],
    "matches": [
        got[0].fullmatch("limit=10").groupdict(),
        bool(got[1].search("ÜNÏCODE here")),
        bool(got[2].match(b"\x00abc")),
        bool(got[3].search("ab")),
        got[4].findall("  x\n\n y \nz!"),
    ],
    "compile_is_re": vars(_compiler)["compile"].__module__ == "re._compiler",
}))
"""


def _re_probe(home: Path) -> dict[str, object]:
    return _probe(home, probe=RE_PROBE)


def test_a_second_start_takes_its_regular_expressions_from_the_cache(tmp_path: Path) -> None:
    import re

    first = _re_probe(tmp_path)
    assert first["parsed"] >= 5  # each pattern parsed by re (and once more to be checked)
    assert first["same"] == [True] * 5
    second = _re_probe(tmp_path)
    assert second["parsed"] == 0  # none parsed in Python: their opcodes came from the file
    # Equal patterns have equal opcodes, flags and groups: the cache gave back re's own.
    assert second["same"] == [True] * 5
    assert second["matches"] == first["matches"]
    assert second["matches"][:4] == [{"key": "limit", "value": "10"}, True, True, True]
    assert second["matches"][4] == re.compile(r"^\s*(\w+)?$", re.M | re.A).findall("  x\n\n y \nz!")
    assert second["compile_is_re"]  # re's compile is back once the imports are done


def test_a_cached_pattern_is_saved_with_the_code_and_a_bad_one_compiles_afresh(
    tmp_path: Path,
) -> None:
    import re

    path = tmp_path / "startup-code.bin"
    cache = CodeCache(path)
    code = cache.compile("x = 1\n", "<gen>", 0)
    pattern = cache.pattern(r"(?P<word>\w+)-(\d)", re.IGNORECASE)
    assert pattern == re.compile(r"(?P<word>\w+)-(\d)", re.IGNORECASE)
    cache.save()
    again = CodeCache(path)
    assert len(again.stored) == 1 and len(again.stored_re) == 1  # both written, one file
    assert again.compile("x = 1\n", "<gen>", 0).co_code == code.co_code
    # An entry _sre refuses (not opcodes it takes) is compiled afresh, never an error.
    (key,) = again.stored_re
    flags, _ops, groups, index, names = again.stored_re[key]
    again.stored_re[key] = (flags, [999_999], groups, index, names)
    redone = again.pattern(r"(?P<word>\w+)-(\d)", re.IGNORECASE)
    assert redone == pattern and redone.match("Ab-3").groups() == ("Ab", "3")
    assert again.used_re[key][1] != [999_999]  # and the good opcodes replace it ...
    before = path.stat().st_mtime_ns
    time.sleep(0.01)
    again.save()
    assert path.stat().st_mtime_ns != before  # ... in the file too
    assert CodeCache(path).stored_re[key] == again.used_re[key]
    written = path.stat().st_mtime_ns
    third = CodeCache(path)
    third.pattern(r"(?P<word>\w+)-(\d)", re.IGNORECASE)
    third.save()
    assert path.stat().st_mtime_ns == written  # a start of hits only writes nothing
