"""Writes the lsprotocol image that `lspimage.load()` reads: `python -m ggd.daemon.lspbuild FOLDER`.

It imports `lsprotocol.types` the normal way (attrs makes every class) in a process of its
own, and pickles the module's namespace by value: each attrs class as `type(name, bases,
slots)` and then its dict (Attribute tuple, generated methods, props), every function from its
code (all code objects in one marshal, as a .pyc keeps them), typing's aliases from their
fields. Enums are remade by their own class statement; the module's leading imports run as
they are. Objects of other modules are pickled by name, their module namespaces by reference.
"""

from __future__ import annotations

import builtins
import contextlib
import copyreg
import enum
import importlib
import io
import marshal
import os
import pickle
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

from . import lspimage
from .codecache import write_cache
from .lspimage import HEADER, MAGIC, MODULE, image_path, run_class

# The module attributes the import system sets; the image's module gets its own.
_DUNDERS = frozenset(
    {
        "__name__",
        "__doc__",
        "__package__",
        "__loader__",
        "__spec__",
        "__file__",
        "__cached__",
        "__builtins__",
    }
)


def _module_dicts() -> dict[int, str]:
    return {
        id(vars(m)): name
        for name, m in list(sys.modules.items())
        if isinstance(m, types.ModuleType) and name != MODULE
    }


class _Pickler(pickle.Pickler):
    """Pickles lsprotocol's namespace by value: its classes, functions and their code."""

    def __init__(
        self, file: io.BytesIO, namespace: dict[str, Any], enums: dict[str, types.CodeType]
    ) -> None:
        super().__init__(file, protocol=5)
        self.namespace = namespace
        self.enums = enums
        self.module_dicts = _module_dicts()
        self.modules: set[str] = set()
        self.codes: list[types.CodeType] = []
        self.code_ids: dict[int, int] = {}
        self.trimmed: dict[int, dict[str, Any]] = {}

    def persistent_id(self, obj: Any) -> Any:
        if obj is self.namespace:
            return "\0"
        if type(obj) is types.CodeType:  # all code in one marshal, as a .pyc holds it
            index = self.code_ids.get(id(obj))
            if index is None:
                index = self.code_ids[id(obj)] = len(self.codes)
                self.codes.append(obj)
            return index
        if type(obj) is dict:  # the C pickler asks reducer_override about no dict
            module = self.module_dicts.get(id(obj))
            if module is not None:
                self.modules.add(module)
            return module
        return None

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is type and obj in _TYPES_BY_NAME:  # builtins pickle finds only in `types`
            return getattr, (types, _TYPES_BY_NAME[obj])
        if _GENERIC_ALIAS is not None and isinstance(obj, _GENERIC_ALIAS):
            # Union[...], Sequence[...], Literal[...]: their fields as they are; typing's
            # __getitem__ (pickle's own form) re-checks every argument, ~20 ms for the module's 510.
            return _NEWOBJ, (type(obj),), obj.__dict__
        if isinstance(obj, types.FunctionType):
            return NotImplemented if _by_reference(obj) else self._function(obj)
        if isinstance(obj, types.CellType):
            try:
                contents = obj.cell_contents
            except ValueError:  # an empty cell
                return types.CellType, ()
            return types.CellType, (), (None, {"cell_contents": contents})
        if isinstance(obj, types.MappingProxyType):
            return types.MappingProxyType, (dict(obj),)
        if isinstance(obj, property):
            return property, (obj.fget, obj.fset, obj.fdel, obj.__doc__)
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        if isinstance(obj, enum.EnumMeta) and obj.__module__ == MODULE:
            name = obj.__qualname__
            code = self.enums.get(name)
            if code is None or self.namespace.get(name) is not obj:
                raise pickle.PicklingError(f"enum {name} has no statement of its own")
            return run_class, (self.namespace, code, name)
        if isinstance(obj, type) and type(obj) is type and _heap(obj) and not _by_reference(obj):
            return _class_reduce(obj)
        return NotImplemented

    def _function(self, fn: types.FunctionType) -> Any:
        state: dict[str, Any] = {
            "__qualname__": fn.__qualname__,
            "__module__": fn.__module__,
            "__doc__": fn.__doc__,
        }
        if fn.__kwdefaults__:
            state["__kwdefaults__"] = fn.__kwdefaults__
        if fn.__annotations__:
            state["__annotations__"] = fn.__annotations__
        if fn.__dict__:
            state["__dict__"] = fn.__dict__
        args = (fn.__code__, self._globals(fn), fn.__name__, fn.__defaults__, fn.__closure__)
        return types.FunctionType, args, (None, state)

    def _globals(self, fn: types.FunctionType) -> dict[str, Any]:
        """A generated method's globals: what attrs added, and the module names its code uses."""
        g = fn.__globals__
        if g is self.namespace or id(g) in self.module_dicts:
            return g
        kept = self.trimmed.get(id(g))
        if kept is None:
            kept = self.trimmed[id(g)] = {
                k: v
                for k, v in g.items()
                if not (k in self.namespace and self.namespace[k] is v) and k != "__builtins__"
            }
            kept["__builtins__"] = builtins.__dict__
        for name in _code_names(fn.__code__):
            if name in g and name not in kept:
                kept[name] = g[name]
        return kept


_NEWOBJ = getattr(copyreg, "__newobj__")  # noqa: B009 - pickle's NEWOBJ opcode (cls.__new__(cls))
_GENERIC_ALIAS: type | None = getattr(typing, "_GenericAlias", None)
_TYPES_BY_NAME: dict[Any, str] = {
    types.FunctionType: "FunctionType",
    types.CellType: "CellType",
    types.MappingProxyType: "MappingProxyType",
}


def _heap(cls: type) -> bool:
    """A class made by Python code (static types such as NoneType are pickle's own business)."""
    return bool(cls.__flags__ & (1 << 9))  # Py_TPFLAGS_HEAPTYPE


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _by_reference(obj: Any) -> bool:
    """Whether pickle's own by-name form finds this very object again (not for our module)."""
    module_name = getattr(obj, "__module__", None)
    if module_name == MODULE or module_name not in sys.modules:
        return False
    found: Any = sys.modules[module_name]
    for part in obj.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is obj


def _class_reduce(cls: type) -> Any:
    """type(name, bases, {slots...}) first, the rest of its dict set after (cycles are fine)."""
    slots = cls.__dict__.get("__slots__")
    skip = {"__dict__", "__weakref__", "__slots__", "__module__", "__qualname__"}
    if isinstance(slots, str):
        skip.add(slots)
    elif slots is not None:
        skip.update(slots)
    first: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
    if slots is not None:
        first["__slots__"] = slots
    rest = {k: v for k, v in cls.__dict__.items() if k not in skip}
    return type, (cls.__name__, cls.__bases__, first), (None, rest)


def build(folder: Path) -> Path:
    """Import lsprotocol.types the normal way and write its image (in a process of its own).

    The image is loaded back into a scratch module and compared with the real one first; one
    that does not remake it is not written (RuntimeError): `main` then writes a "disabled"
    entry for this key, so starts import lsprotocol normally and start no builder until attrs
    or lsprotocol change.
    """
    import ast

    if MODULE in sys.modules:
        raise RuntimeError(f"{MODULE} is imported already; build the image in a fresh process")
    module = importlib.import_module(MODULE)
    _resolve_forward_references()
    origin = module.__file__
    if origin is None:
        raise RuntimeError(f"{MODULE} has no source file")
    tree = ast.parse(Path(origin).read_text(encoding="utf-8"), origin)
    prelude: list[ast.stmt] = []
    for stmt in tree.body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            break
        prelude.append(stmt)
    prelude_names = {
        (alias.asname or alias.name).split(".")[0]
        for stmt in prelude
        if isinstance(stmt, (ast.Import, ast.ImportFrom))
        for alias in stmt.names
    }
    namespace = vars(module)
    enums = {
        stmt.name: compile(ast.Module([stmt], []), origin, "exec", dont_inherit=True)
        for stmt in tree.body
        if isinstance(stmt, ast.ClassDef) and isinstance(namespace.get(stmt.name), enum.EnumMeta)
    }
    values = {k: v for k, v in namespace.items() if k not in _DUNDERS and k not in prelude_names}
    buf = io.BytesIO()
    pickler = _Pickler(buf, namespace, enums)
    pickler.dump(values)
    code = compile(ast.Module(prelude, []), origin, "exec", dont_inherit=True)
    image = (code, sorted(pickler.modules), pickler.codes, buf.getvalue())
    path = image_path(folder)
    if fingerprint(_scratch(image, origin)) != fingerprint(namespace):
        raise RuntimeError("the image does not remake lsprotocol.types; starts import it")
    write_cache(path, HEADER + MAGIC + marshal.dumps((lspimage.key(origin), *image)))
    return path


def _resolve_forward_references() -> None:
    """Resolve every class's string types now, as lsprotocol's converter does at its first use.

    Each start makes that converter (pygls' `default_converter()`, in the start-up window),
    whose first step runs `attrs.resolve_types` over all 554 classes (~10 ms). Classes pickled
    resolved carry `__attrs_types_resolved__`, so that step finds nothing left to do.
    """
    try:
        from lsprotocol import _hooks
    except ImportError:
        return
    resolve = getattr(_hooks, "_resolve_forward_references", None)
    if callable(resolve):  # a private helper: without it the image holds the classes unresolved
        resolve()


def _scratch(image: lspimage.Image, origin: str) -> dict[str, Any]:
    """The image loaded into a module object of its own (not in sys.modules), beside the real one."""
    scratch = types.ModuleType(MODULE)
    scratch.__package__ = MODULE.rpartition(".")[0]
    scratch.__file__ = origin
    lspimage.ImageLoader(image).exec_module(scratch)
    return vars(scratch)


def fingerprint(namespace: dict[str, Any]) -> dict[str, Any]:
    """What the image must remake: every name, and for each class its dict's names, fields and
    members, each field's type, default, validator and flags, each function's code."""
    import attrs

    def text(value: Any) -> str:  # a repr without addresses
        return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))

    def function(fn: types.FunctionType) -> Any:
        code = fn.__code__
        return (fn.__qualname__, code.co_code, code.co_names, text(fn.__defaults__))

    out: dict[str, Any] = {}
    for name, value in namespace.items():
        if name in _DUNDERS:
            continue
        if isinstance(value, type):
            parts: list[Any] = [value.__qualname__, value.__module__, sorted(vars(value))]
            parts += [
                function(v) for v in vars(value).values() if isinstance(v, types.FunctionType)
            ]
            if attrs.has(value):
                parts += [
                    (
                        a.name,
                        text(a.type),
                        text(a.default),
                        text(a.validator),
                        a.kw_only,
                        a.alias,
                        a.init,
                        a.eq,
                        a.order,
                    )
                    for a in attrs.fields(value)
                ]
            if isinstance(value, enum.EnumMeta):
                parts += [(m.name, m.value) for m in value]  # type: ignore[var-annotated]
            out[name] = parts
        elif isinstance(value, types.FunctionType):
            out[name] = function(value)
        else:
            out[name] = (type(value).__name__, text(value))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m ggd.daemon.lspbuild FOLDER", file=sys.stderr)
        return 2
    folder = Path(args[0])
    with contextlib.suppress(OSError):
        os.nice(10)  # a start's first request matters more than this file
    try:
        build(folder)
    except OSError as exc:  # the folder: a later start tries again
        print(f"lspbuild: no image written: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # this lsprotocol does not pickle: starts import it, build none
        print(f"lspbuild: no image for this lsprotocol: {exc!r}", file=sys.stderr)
        with contextlib.suppress(Exception):
            lspimage.disable(folder, lspimage.types_origin())
        return 1
    finally:
        with contextlib.suppress(OSError):
            (folder / f".{image_path(folder).name}.building").unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
