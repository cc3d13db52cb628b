"""A capability's method rows and handlers, imported the first time they are needed.

A capability's protocol module is pydantic models (and its handlers module what they call):
~2-6 ms of imports each, paid at every daemon start although a start serves, at first, none of
them. What the daemon needs up front is only which requests could be a capability's: `DeferredRows`
names the areas of its methods (`job` for gg/job.*), and the rows (`<package>.protocol:METHODS`)
and handlers (`<package>.handlers:HANDLERS`) are imported at the first request in one of them.
The method names are written once, in the rows.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from ggd.protocol import MethodSpec
from ggd.protocol import errors as E

log = logging.getLogger("ggd.capabilities")

__all__ = ["DeferredHandlers", "DeferredRows", "load_ref"]


def load_ref(ref: str) -> Any:
    """The object a `package.module:attr` reference names (importing its module).

    A module that fails to import (a broken install, a missing optional dependency) is a typed
    capability_unavailable error for the call that needed it, logged; the next call tries again.
    """
    module, _, attr = ref.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as exc:
        log.error("capability module failed to import", extra={"ref": ref, "reason": str(exc)})
        raise E.CapabilityUnavailableError(
            f"{module} could not be imported ({exc}); see the daemon log"
        ) from None


class DeferredRows(Sequence[MethodSpec]):
    """A capability's rows (`<package>.protocol:METHODS`), imported at their first use.

    `areas` are the `<area>` parts of its `gg/<area>.<verb>` names: until the rows are imported,
    a request in one of them is the capability's to answer (the registry imports the rows at
    the first such request and knows the names from then on). The names live in the rows alone.
    """

    def __init__(self, package: str, *areas: str) -> None:
        if not areas:
            raise ValueError("a deferred capability names the areas of its methods")
        self.ref = f"{package}.protocol:METHODS"
        self.areas = areas
        self._rows: tuple[MethodSpec, ...] | None = None

    @property
    def loaded(self) -> bool:
        """Whether the rows' module has been imported."""
        return self._rows is not None

    def rows(self) -> tuple[MethodSpec, ...]:
        """The rows, imported now if need be."""
        if self._rows is None:
            self._rows = tuple(load_ref(self.ref))
        return self._rows

    def covers(self, method: str) -> bool:
        """Whether `method` is in one of the areas (without importing anything)."""
        return method.removeprefix("gg/").split(".", 1)[0] in self.areas

    @overload
    def __getitem__(self, index: int) -> MethodSpec: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[MethodSpec]: ...
    def __getitem__(self, index: int | slice) -> MethodSpec | Sequence[MethodSpec]:
        return self.rows()[index]

    def __len__(self) -> int:
        return len(self.rows())

    def __iter__(self) -> Iterator[MethodSpec]:
        return iter(self.rows())


class DeferredHandlers(Mapping[str, Any]):
    """A capability's handlers by method name (`<package>.handlers:HANDLERS`), imported at first
    use: any lookup or iteration imports the module."""

    def __init__(self, package: str) -> None:
        self.ref = f"{package}.handlers:HANDLERS"
        self._handlers: Mapping[str, Any] | None = None

    @property
    def loaded(self) -> bool:
        """Whether the handlers' module has been imported."""
        return self._handlers is not None

    def handlers(self) -> Mapping[str, Any]:
        """The module's handler mapping, imported now if need be."""
        if self._handlers is None:
            self._handlers = load_ref(self.ref)
        return self._handlers

    def __getitem__(self, name: str) -> Any:
        return self.handlers()[name]

    def __len__(self) -> int:
        return len(self.handlers())

    def __iter__(self) -> Iterator[str]:
        return iter(self.handlers())
