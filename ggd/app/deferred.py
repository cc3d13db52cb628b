"""A capability's method rows and handlers, imported the first time they are needed.

A capability's protocol module is pydantic models (and its handlers module what they call):
~2-6 ms of imports each, paid at every daemon start although a start serves, at first, none of
them. What the daemon needs up front is only the names of the client requests, to register one
feature per name on each connection; `DeferredRows` and `DeferredHandlers` carry those names and
import the rows (`module:attr`) or the handlers at the first use of either. A capability lists
its request names once beside them; tests/unit/protocol/test_protocol.py checks them against the
rows, so the two cannot drift.
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
    """Method rows imported at first use; `requests` (the client request names) are known now."""

    def __init__(self, ref: str, requests: Sequence[str]) -> None:
        self.ref = ref
        self.requests = tuple(requests)
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
    """A capability's handlers by method name; their module is imported at the first call.

    Iterating gives the declared names without importing anything; looking one up imports the
    module and returns its handler (a name the module does not handle is a KeyError).
    """

    def __init__(self, ref: str, names: Sequence[str]) -> None:
        self.ref = ref
        self.names = tuple(names)
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
        if name not in self.names:
            raise KeyError(name)
        return self.handlers()[name]

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)
