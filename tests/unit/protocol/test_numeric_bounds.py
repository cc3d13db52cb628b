"""Every number a client may send is bounded in its params model (issue 30: offset 10^18 was a -32603).

A number without an upper bound reaches the handler as any integer JSON allows (4,300 digits) or
any float up to 1e308, and the first `seek`, `timedelta` or C call on it raises an internal error
instead of the -32602 the client's mistake deserves.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
import typing
from typing import Any

import annotated_types
from pydantic import BaseModel

import ggd
from ggd.protocol.base import Params

# Models the daemon sends (to a client) rather than receives: clients check them, not ggd.
SENT_BY_GGD = {"ClientRunCommandParams"}


def _params_models() -> list[type[Params]]:
    found: dict[str, type[Params]] = {}
    for mod in pkgutil.walk_packages(ggd.__path__, "ggd."):
        if "protocol" not in mod.name and "params" not in mod.name:
            continue
        module = importlib.import_module(mod.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, Params) and obj is not Params:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [m for _, m in sorted(found.items()) if m.__name__ not in SENT_BY_GGD]


def _numeric(annotation: Any) -> bool:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_numeric(a) for a in args)
    return annotation in (int, float)


def _nested(annotation: Any) -> list[type[BaseModel]]:
    """Models inside a field's type (`X | None`, `list[X]`, `dict[str, X]`)."""
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _nested(a)]


def _unbounded(model: type[BaseModel], seen: set[type[BaseModel]] | None = None) -> list[str]:
    seen = set() if seen is None else seen
    if model in seen:
        return []
    seen.add(model)
    model.model_rebuild()
    out = []
    for name, field in model.model_fields.items():
        for inner in _nested(field.annotation):
            out += _unbounded(inner, seen)
        if not _numeric(field.annotation):
            continue
        upper = [
            m for m in field.metadata if isinstance(m, (annotated_types.Le, annotated_types.Lt))
        ]
        if not upper:
            out.append(f"{model.__name__}.{name}")
    return out


def test_the_walk_finds_the_capability_params() -> None:
    names = {m.__name__ for m in _params_models()}
    assert {"LibraryGetParams", "JobAddParams", "RunWaitParams", "KbSearchParams"} <= names


def test_every_numeric_param_has_an_upper_bound() -> None:
    missing = [f for m in _params_models() for f in _unbounded(m)]
    assert missing == []
