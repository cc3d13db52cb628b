"""A cache of the code attrs and dataclasses generate while ggd's modules are imported.

pygls' LSP types (`lsprotocol.types`) are ~550 attrs classes, and ggd and its libraries define
~160 dataclasses; both write each class's `__init__`, `__repr__`, `__eq__`... as Python source
and compile it at import, every start (~0.15 s of lsprotocol's ~0.27 s, and tens of ms more).
The compiled code depends only on that source, its file name and the compiler flags, so the code
objects are kept in GG_HOME/cache/ (marshal, like a .pyc) keyed by a hash of all three, and the
generators get them back instead of compiling. The file holds exactly what the last start used, so an
upgraded attrs or lsprotocol rewrites it; a missing, corrupt or foreign-Python file is a cold
start, never an error. It holds code this process runs: it lives in the owner-only GG_HOME, like
the config that already names the commands and providers ggd trusts.

The same file keeps the compiled form of the regular expressions the imports compile (~150, ~14 ms
of pure-Python parsing per start): `re` turns a pattern into a list of opcodes in Python, then
hands them to C (`_sre.compile`). The opcodes are kept, keyed by the pattern, its type, its flags
and `_sre.MAGIC`; a hit goes straight to `_sre.compile`. Each miss is checked against `re`'s own
compile before it is kept (equal patterns compare their opcodes), so only a faithful copy is ever
stored.
"""

from __future__ import annotations
import __future__

import builtins
import contextlib
import hashlib
import importlib
import importlib.util
import marshal
import os
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

V = TypeVar("V")

# The interpreter's bytecode magic: code objects from another Python are never loaded.
_MAGIC = importlib.util.MAGIC_NUMBER


class CodeCache:
    """Code objects by hash of (file name, source, flags), loaded from and saved to one file.

    Some generated source differs at every start (attrs writes a frozen class's `__hash__`
    with the per-process string hash of its name): its file name is remembered as volatile,
    so a start whose only misses are those does not rewrite the file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stored, self.volatile, self.stored_re = _load(path)
        self.used: dict[bytes, types.CodeType] = {}
        self.used_re: dict[bytes, Opcodes] = {}
        self.missed: set[str] = set()
        self.misses = 0

    def compile(self, source: str, filename: str, flags: int, mode: str = "exec") -> types.CodeType:
        """The code of one generated script: from the cache, else compiled (and remembered)."""
        # "eval" (typing's forward references) is keyed apart; "exec" keys predate it.
        prefix = "" if mode == "exec" else f"{mode}\0"
        key = hashlib.blake2b(
            f"{prefix}{flags}\0{filename}\0{source}".encode("utf-8", "surrogatepass"),
            digest_size=16,
        ).digest()
        code = self.used.get(key) or self.stored.get(key)
        if code is None:
            self.misses += 1
            self.missed.add(filename if mode == "exec" else f"<{mode}>")
            code = builtins.compile(source, filename, mode, flags, dont_inherit=True)
        self.used[key] = code
        return code

    def pattern(self, pattern: str | bytes, flags: int) -> re.Pattern[Any]:
        """`re._compiler.compile(pattern, flags)`: its opcodes from the cache, else made (and
        kept once they match what `re` itself compiles)."""
        raw = pattern.encode("utf-8", "surrogatepass") if isinstance(pattern, str) else pattern
        kind = b"s" if isinstance(pattern, str) else b"b"
        key = hashlib.blake2b(
            b"re\0%d\0%d\0%s\0%s" % (_sre.MAGIC, flags, kind, raw), digest_size=16
        ).digest()
        ops = self.used_re.get(key) or self.stored_re.get(key)
        compiled: re.Pattern[Any] | None
        if ops is not None:
            try:
                compiled = _sre.compile(pattern, *ops)
            except (TypeError, ValueError, RuntimeError, OverflowError):
                compiled = None  # not opcodes this _sre takes: made afresh below
            if compiled is not None:
                self.used_re[key] = ops
                return compiled
        expected: re.Pattern[Any] = _RE_COMPILE(pattern, flags)
        made = _opcodes(pattern, flags)
        if made is not None and _sre.compile(pattern, *made) == expected:  # same opcodes
            self.used_re[key] = made
        return expected

    def save(self) -> None:
        """Write the file when this start compiled something new (atomic, owner-only).

        Entries of other entry points (a --ws daemon imports more) are kept; when most of the
        file went unused (attrs or a library was upgraded) it is pruned to what this start used.
        """
        # Patterns kept this start that the file lacks (or holds otherwise); one `re` could not
        # copy faithfully is never kept, so it does not make every start rewrite the file.
        new_patterns = any(self.stored_re.get(k) != v for k, v in self.used_re.items())
        if not (self.used or self.used_re) or (self.missed <= self.volatile and not new_patterns):
            return
        # What missed although a cache was there is new code or code that differs every start.
        volatile = sorted(self.missed) if self.stored else []
        table = _kept(self.stored, self.used)
        patterns = _kept(self.stored_re, self.used_re)
        try:
            write_cache(self.path, _MAGIC + marshal.dumps((table, volatile, patterns)))
        except (OSError, ValueError):
            # A read-only or missing GG_HOME, or a folder others can write: the next start
            # compiles again, nothing breaks.
            return


def _kept(stored: dict[bytes, V], used: dict[bytes, V]) -> dict[bytes, V]:
    """What a save writes of one table: the file's entries and this start's, or this start's
    alone when most of the file went unused (a library was upgraded)."""
    unused = sum(1 for k in stored if k not in used)
    return {**stored, **used} if unused < len(used) else dict(used)


def write_cache(path: Path, data: bytes) -> None:
    """Replace a cache file the way ggd writes its private files (`ggd.app.files.write_private`:
    0600, never half-written), in a folder only we may write (made 0700).

    PermissionError when others may write the folder: nothing of ours is left in it.
    """
    # Called after the start-up imports (ggd.app is the daemon's own layer), or by the builder.
    from ggd.app.files import write_private

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _owned(os.stat(path.parent)):
        raise PermissionError(f"{path.parent} may be written by others")
    write_private(path, data)


def read_cache(path: Path) -> bytes:
    """The bytes of a cache file only we can have written.

    FileNotFoundError when it is missing; PermissionError when the file or its folder is not
    ours alone: what these files hold is run, so such a file is never read.
    """
    with open(path, "rb") as fh:
        if not _trusted(fh.fileno(), path.parent):
            raise PermissionError(f"{path} may have been written by others")
        return fh.read()


def _trusted(fd: int, folder: Path) -> bool:
    """The file and its folder are ours and nobody else can write them.

    The cache is read before the daemon checks GG_HOME's modes, and what it holds is run:
    a file another user could have written is ignored (a cold start), never executed.
    """
    try:
        return _owned(os.fstat(fd)) and _owned(os.stat(folder))
    except OSError:
        return False


def _owned(st: os.stat_result) -> bool:
    """Ours, and neither group nor others may write it."""
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _load(
    path: Path,
) -> tuple[dict[bytes, types.CodeType], set[str], dict[bytes, Opcodes]]:
    try:
        data = read_cache(path)
    except OSError:
        return {}, set(), {}
    if not data.startswith(_MAGIC):
        return {}, set(), {}
    try:
        loaded = marshal.loads(data[len(_MAGIC) :])
    except (EOFError, ValueError, TypeError):
        return {}, set(), {}
    if not isinstance(loaded, tuple) or len(loaded) not in (2, 3):
        return {}, set(), {}
    table, volatile, *rest = loaded
    patterns = rest[0] if rest else {}
    if not isinstance(table, dict) or not isinstance(volatile, list):
        return {}, set(), {}
    code = {
        k: v for k, v in table.items() if isinstance(k, bytes) and isinstance(v, types.CodeType)
    }
    ops: dict[bytes, Opcodes] = {}
    if isinstance(patterns, dict):
        ops = {k: v for k, v in patterns.items() if isinstance(k, bytes) and _is_opcodes(v)}
    return code, {v for v in volatile if isinstance(v, str)}, ops


def _future_flags(namespace: dict[str, Any]) -> int:
    """The `from __future__` flags a module was compiled with (its generated code gets them too)."""
    flags = 0
    for value in namespace.values():
        if isinstance(value, __future__._Feature):
            flags |= value.compiler_flag
    return flags


def cache_folder(home: Path | None) -> Path | None:
    """GG_CODE_CACHE_DIR, else GG_HOME/cache; None without an existing GG_HOME.

    The override lets many short-lived GG_HOMEs (a test suite's) share one cache: entries are
    keyed by content, so any daemon of the same Python may use any other's.
    """
    override = os.environ.get("GG_CODE_CACHE_DIR")
    if override:
        return Path(override)
    if home is None or not home.is_dir():
        return None
    return home / "cache"


@contextlib.contextmanager
def startup_code_cache(home: Path | None) -> Iterator[CodeCache | None]:
    """While active, attrs, cattrs and dataclasses take the code they generate from GG_HOME/cache/.

    Only attrs' and cattrs' `compile(script, filename, "exec")`, dataclasses' `exec(source,
    globals, locals)` and typing's `compile(annotation, "<string>", "eval")` (a forward reference:
    pydantic makes ~1,300 of the start's string annotations one, ~470 distinct) are served; any
    other call goes to the builtin unchanged. Without an existing GG_HOME nothing is patched.
    """
    folder = cache_folder(home)
    if folder is None:
        yield None
        return
    import dataclasses
    import typing

    tag = sys.implementation.cache_tag or "py"
    cache = CodeCache(folder / f"startup-code.{tag}.bin")
    with contextlib.ExitStack() as stack:
        for name in ("attr._make", "cattrs.gen"):
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            stack.enter_context(_shadow(module, "compile", _attrs_compile(cache, module)))
        stack.enter_context(_shadow(dataclasses, "exec", _dataclasses_exec(cache, dataclasses)))
        stack.enter_context(_shadow(typing, "compile", _forward_ref_compile(cache, typing)))
        if _opcodes("(?P<a>x)|y", 0) is not None:  # this re still has the shape _opcodes reads
            stack.enter_context(_shadow(_re_compiler, "compile", _regex_compile(cache)))
        try:
            yield cache
        finally:
            stack.close()
            cache.save()


def _attrs_compile(cache: CodeCache, module: types.ModuleType) -> Any:
    """attrs' (and cattrs') `compile(script, filename, "exec")`, served from the cache."""
    flags = _future_flags(vars(module))

    def compile_(source: Any, filename: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or mode != "exec" or not isinstance(source, str):
            return builtins.compile(source, filename, mode, *args, **kwargs)
        return cache.compile(source, str(filename), flags)

    return compile_


def _dataclasses_exec(cache: CodeCache, module: types.ModuleType) -> Any:
    """dataclasses' `exec(source, globals, locals)` of a generated method, compiled from the cache."""
    flags = _future_flags(vars(module))

    def exec_(source: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not isinstance(source, str):
            return builtins.exec(source, *args, **kwargs)
        # exec() of a string compiles it as "<string>" with the calling module's future flags.
        return builtins.exec(cache.compile(source, "<string>", flags), *args)

    return exec_


def _forward_ref_compile(cache: CodeCache, module: types.ModuleType) -> Any:
    """typing's `compile(annotation, "<string>", "eval")` of a forward reference, from the cache."""
    flags = _future_flags(vars(module))

    def compile_(source: Any, filename: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or mode != "eval" or not isinstance(source, str):
            return builtins.compile(source, filename, mode, *args, **kwargs)
        return cache.compile(source, str(filename), flags, "eval")

    return compile_


# A compiled pattern's arguments to `_sre.compile` after the pattern: its flags, opcodes, the
# number of groups, name -> group and group -> name.
Opcodes = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

# re's internals (3.11+): the Python half of compiling a pattern, and the C half it calls.
_re_compiler: Any = importlib.import_module("re._compiler")
_sre: Any = importlib.import_module("_sre")
_RE_COMPILE = _re_compiler.compile


def _opcodes(pattern: str | bytes, flags: int) -> Opcodes | None:
    """What `re._compiler.compile` hands `_sre.compile`, or None when this re is shaped otherwise."""
    try:
        tree = _re_compiler._parser.parse(pattern, flags)
        code = _re_compiler._code(tree, flags)
        groupindex = dict(tree.state.groupdict)
        indexgroup: list[str | None] = [None] * tree.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        return (
            int(flags | tree.state.flags),
            [int(op) for op in code],  # plain ints: re's opcodes are named int subclasses
            tree.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
    except Exception:  # re's internals shaped otherwise: re compiles it, nothing is kept
        return None


def _is_opcodes(value: Any) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 5
        and isinstance(value[0], int)
        and isinstance(value[1], list)
        and isinstance(value[2], int)
        and isinstance(value[3], dict)
        and isinstance(value[4], tuple)
    )


def _regex_compile(cache: CodeCache) -> Any:
    """`re._compiler.compile` for the import phase: str and bytes patterns from the cache."""

    def compile_(p: Any, flags: int = 0) -> Any:
        if type(p) not in (str, bytes) or type(flags) is not int or flags & re.DEBUG:
            return _RE_COMPILE(p, flags)
        return cache.pattern(p, flags)

    return compile_


@contextlib.contextmanager
def _shadow(module: types.ModuleType, name: str, value: Any) -> Iterator[None]:
    """A module-level name that shadows the builtin of that name while active."""
    namespace = vars(module)
    had, previous = name in namespace, namespace.get(name)
    namespace[name] = value
    try:
        yield
    finally:
        if had:
            namespace[name] = previous
        else:
            namespace.pop(name, None)


__all__ = ["CodeCache", "cache_folder", "read_cache", "startup_code_cache", "write_cache"]
