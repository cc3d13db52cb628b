"""The capability registry: the daemon's one method table, its providers, and what is advertised.

Assembled once per daemon by the composition root from `Capability` values; the rpc layer adds
the core's own methods (a capability like the others) once, when its hub is made. Every client
request is routed through `route()`: one `Route` per row, built at the row's first call and kept
for the daemon's life. What `initialize` and `gg/system.info` advertise, which tools a turn gets
and which providers are degraded are all computed here; no other module names a capability.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from ggd.agent import PromptSection
from ggd.protocol import MethodSpec
from ggd.protocol import errors as E
from ggd.tools import Tool

from .deferred import DeferredHandlers, DeferredRows
from .extension import (
    Capability,
    Contribution,
    DaemonServices,
    Handler,
    ScopeContext,
    SessionContext,
    SetupContext,
    StateContext,
    ToolProvider,
)
from .routes import Route

log = logging.getLogger("ggd.capabilities")

# A provider's build that takes longer than this is a degradation, never a stalled turn.
BUILD_TIMEOUT_SECONDS = 30.0
_REASON_LIMIT = 300
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)


# The folders of an absolute path (what is left is its last component).
_DIRS = re.compile(r"(?<![\w.~])/(?:[^\s/'\"]+/)+")


def sanitize_reason(
    text: str, env: Mapping[str, str] | None = None, gg_home: Path | None = None
) -> str:
    """A degradation reason fit for clients: one line, no secret values, no paths.

    GG_HOME shows as `GG_HOME`, the home folder as `~`, and any other absolute path keeps only
    its last component (`…/flaky.db`): the reason names the file without revealing the layout.
    """
    env = os.environ if env is None else env
    out = " ".join(str(text).split())
    for name, value in env.items():
        if _SECRET_NAME.search(name) and len(value) >= 6:
            out = out.replace(value, "***")
    if gg_home is not None:
        out = out.replace(str(gg_home), "GG_HOME")
    home = str(Path.home())
    if home not in ("", "/"):
        out = out.replace(home, "~")
    out = _DIRS.sub("…/", out)
    return out[:_REASON_LIMIT] or "failed to build"


@dataclass
class TurnTools:
    """Everything the providers contributed to one turn."""

    tools: list[Tool] = field(default_factory=list)
    sections: list[PromptSection] = field(default_factory=list)
    read_roots: list[Path] = field(default_factory=list)


# The book's key for failures that hold in every workspace (a probe at daemon start).
DAEMON_WIDE = "*"
# Makes the SessionContext a provider builds with (its own slice of the Service state).
ContextFactory = Callable[[ToolProvider], SessionContext]


class DegradedBook:
    """Workspace-wide build outcomes: a provider that failed, until it builds again anywhere there."""

    def __init__(self) -> None:
        self._by_ws: dict[str, dict[str, str]] = {}

    def failed(self, workspace_id: str, provider: str, reason: str) -> None:
        """Record a failed build."""
        self._by_ws.setdefault(workspace_id, {})[provider] = reason

    def ok(self, workspace_id: str, provider: str, parts: Mapping[str, str] | None = None) -> None:
        """Record a good build: the provider is no longer degraded in that workspace.

        `parts` are the provider's failed parts this build; they replace its earlier ones.
        """
        book = self._by_ws.get(workspace_id, {})
        book.pop(provider, None)
        for name in [n for n in book if n.startswith(provider + ":")]:
            del book[name]
        for part, reason in (parts or {}).items():
            self.failed(workspace_id, f"{provider}:{part}", reason)

    def report(self, workspace_id: str) -> list[dict[str, str]]:
        """Degraded providers of a workspace (and daemon-wide ones) as {name, reason}."""
        merged = {**self._by_ws.get(DAEMON_WIDE, {}), **self._by_ws.get(workspace_id, {})}
        return [{"name": n, "reason": r} for n, r in sorted(merged.items())]


class CapabilityRegistry:
    """Every capability of this daemon and the providers built from them."""

    def __init__(
        self,
        capabilities: Sequence[Capability],
        setup: SetupContext,
        sections: Mapping[str, BaseModel] | None = None,
        core: Sequence[str] = (),
    ) -> None:
        self.capabilities = tuple(capabilities)
        self.sections = dict(sections or {})
        self.core = tuple(core)
        self.book = DegradedBook()
        self._env = setup.env
        self._home = setup.home
        names = [c.name for c in self.capabilities]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate capability names in {names}")
        # The one error table: the core's and every capability's own (a code claimed twice fails).
        self.errors = E.error_table(e for c in self.capabilities for e in c.errors)
        self.providers: list[ToolProvider] = []
        self._handlers: dict[str, tuple[Capability, Handler]] = {}
        # Deferred capabilities not imported yet, by the areas of their methods (gg/<area>.*).
        self._pending: dict[str, Capability] = {}
        self._row_sources: list[Sequence[MethodSpec]] = []
        self._requests: list[str] = []
        self._states: dict[str, object] = {}
        self._services: DaemonServices | None = None
        self._routes: dict[str, Route] = {}
        for cap in self.capabilities:
            if cap.providers is not None:
                section = self.sections.get(cap.config_key or "")
                ctx = SetupContext(
                    home=setup.home,
                    config=section,
                    env=setup.env,
                    sandbox=setup.sandbox,
                    own_state=functools.partial(self.state, cap.name),
                )
                self.providers.extend(cap.providers(ctx))
            self._add_methods(cap)
        pnames = [p.name for p in self.providers]
        if len(set(pnames)) != len(pnames) or not all(pnames):
            raise ValueError(f"provider names must be unique and non-empty: {pnames}")

    def _add_methods(self, cap: Capability, *, first: bool = False) -> None:
        self._row_sources.insert(0 if first else len(self._row_sources), cap.methods)
        if isinstance(cap.methods, DeferredRows):
            for area in cap.methods.areas:
                if area in self._pending:
                    raise ValueError(f"two capabilities claim gg/{area}.*")
                self._pending[area] = cap
            return
        self._bind(cap, cap.methods, first=first)

    def _bind(self, cap: Capability, rows: Sequence[MethodSpec], *, first: bool = False) -> None:
        names = [s.name for s in rows if s.kind == "request" and s.direction == "client"]
        at = 0 if first else len(self._requests)
        self._requests[at:at] = names
        for method in cap.handlers:
            if method in self._handlers:
                raise ValueError(f"two capabilities handle {method}")
            self._handlers[method] = (cap, cap.handlers[method])

    def _load(self, method: str) -> None:
        """Import the deferred capability whose area `method` is in: its rows and handlers.

        An import that fails is a capability_unavailable error for this call; the next tries
        again.
        """
        cap = self._pending.get(method.removeprefix("gg/").split(".", 1)[0])
        if cap is None or not isinstance(cap.methods, DeferredRows):
            return
        rows = cap.methods.rows()
        if isinstance(cap.handlers, DeferredHandlers):
            cap.handlers.handlers()
        for area in cap.methods.areas:
            self._pending.pop(area, None)
        self._bind(cap, rows)

    @property
    def env(self) -> Mapping[str, str]:
        """The daemon's environment as it was composed (what handlers and channels get)."""
        return self._env

    def attach(self, services: DaemonServices) -> None:
        """The daemon's core, once it is assembled: what capability states are made with."""
        self._services = services

    def state(self, name: str) -> object:
        """A capability's per-daemon state, made from its declaration at the first use."""
        if name in self._states:
            return self._states[name]
        cap = next((c for c in self.capabilities if c.name == name), None)
        if cap is None or cap.state is None:
            return None
        if self._services is None:
            raise RuntimeError("capability state asked for before the daemon core was attached")
        made = self._states[name] = cap.state(
            StateContext(
                home=self._home,
                config=self.sections.get(cap.config_key or ""),
                env=self._env,
                services=self._services,
            )
        )
        return made

    def register(self, cap: Capability, *, state: object = None, first: bool = False) -> None:
        """Add a capability's methods to the table after assembly (the core's own, by the hub).

        `state` is what its handlers get as `ctx.state(...)`; `first` puts its rows at the head
        of the table (the core's).
        """
        if any(c.name == cap.name for c in self.capabilities):
            raise ValueError(f"capability {cap.name!r} is registered already")
        self.capabilities = (cap, *self.capabilities) if first else (*self.capabilities, cap)
        self.errors = E.error_table((*self.errors, *cap.errors))
        self._states[cap.name] = state
        self._add_methods(cap, first=first)

    # -- the protocol surface -----------------------------------------------------------------

    def methods(self) -> tuple[MethodSpec, ...]:
        """The capabilities' method rows (the core rows live in ggd.protocol.methods).

        Imports every deferred capability protocol module: for the export and tests, not the
        start-up path.
        """
        return tuple(spec for rows in self._row_sources for spec in rows)

    def requests(self) -> tuple[str, ...]:
        """The names of the client requests known so far (a deferred capability's once loaded)."""
        return tuple(self._requests)

    def serves(self, method: str) -> bool:
        """Whether `method` is a client request of the table (importing its capability if
        it is deferred). One whose module fails to import counts: its call gets the error."""
        if method in self._handlers:
            return True
        try:
            self._load(method)
        except E.GgError:
            return True
        return method in self._handlers

    def row(self, method: str) -> MethodSpec | None:
        """One capability row by name (importing the protocol module that holds it)."""
        for rows in self._row_sources:
            if isinstance(rows, DeferredRows) and not rows.covers(method):
                continue
            for spec in rows:
                if spec.name == method:
                    return spec
        return None

    def handler(self, method: str) -> tuple[Capability, Handler] | None:
        """The handler of a client request row and the capability that owns it."""
        if method not in self._handlers:
            self._load(method)
        return self._handlers.get(method)

    def route(self, method: str) -> Route | None:
        """The client request `method` as a call, made at its first use; None when not served."""
        got = self._routes.get(method)
        if got is not None:
            return got
        owned = self.handler(method)
        if owned is None:
            return None
        spec = self.row(method)
        if spec is None:
            raise RuntimeError(f"{method} has a handler but no method row")
        cap, fn = owned
        got = self._routes[method] = Route(
            spec=spec,
            capability=cap,
            handler=fn,
            config=self.sections.get(cap.config_key) if cap.config_key else None,
            state=self.state(cap.name),
        )
        return got

    def section(self, key: str) -> BaseModel | None:
        """A validated config section."""
        return self.sections.get(key)

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Let every provider probe what it needs, once; a failing probe is logged, not fatal."""
        for p in self.providers:
            try:
                await p.start()
            except Exception as exc:
                reason = sanitize_reason(str(exc) or type(exc).__name__, self._env, self._home)
                self.book.failed(DAEMON_WIDE, p.name, reason)
                log.warning("provider start failed", extra={"provider": p.name, "reason": reason})

    async def aclose(self) -> None:
        """Tell every provider the daemon stops."""
        for p in self.providers:
            try:
                await p.aclose()
            except Exception:
                log.warning("provider close failed", extra={"provider": p.name}, exc_info=True)

    # -- what is advertised -------------------------------------------------------------------

    def available(self, scope: ScopeContext) -> list[ToolProvider]:
        """Providers that can exist in this workspace (expected absences left out quietly)."""
        out = []
        for p in self.providers:
            try:
                reason = p.available(scope)
            except Exception:
                log.warning("provider availability check failed", extra={"provider": p.name})
                continue
            if reason is None:
                out.append(p)
            else:
                log.debug("provider absent", extra={"provider": p.name, "reason": reason})
        return out

    def advertised(self, scope: ScopeContext) -> list[str]:
        """Capability strings for a workspace: the core ones, then each available provider's."""
        caps = list(self.core)
        for p in self.available(scope):
            for c in p.capabilities:
                if c not in caps:
                    caps.append(c)
        return caps

    def degraded(self, workspace_id: str) -> list[dict[str, str]]:
        """Providers whose last build in this workspace failed."""
        return self.book.report(workspace_id)

    # -- one turn -----------------------------------------------------------------------------

    async def build(self, ctx_for: ContextFactory, scope: ScopeContext) -> TurnTools:
        """Build every available provider for one turn; one failure degrades that provider only."""
        providers = self.available(scope)
        results = await asyncio.gather(*(self._build_one(p, ctx_for(p)) for p in providers))
        out = TurnTools()
        seen: set[str] = set()
        for p, contrib in zip(providers, results, strict=True):
            if contrib is None:
                continue
            for tool in contrib.tools:
                if tool.name in seen:
                    log.warning(
                        "duplicate tool name skipped", extra={"provider": p.name, "tool": tool.name}
                    )
                    continue
                seen.add(tool.name)
                out.tools.append(tool)
            if contrib.prompt is not None:
                out.sections.append(contrib.prompt)
            out.read_roots.extend(contrib.read_roots)
        return out

    async def _build_one(self, p: ToolProvider, ctx: SessionContext) -> Contribution | None:
        ws = ctx.workspace.id
        try:
            async with asyncio.timeout(BUILD_TIMEOUT_SECONDS):
                contrib = await p.build(ctx)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            self.book.failed(ws, p.name, "took too long to start")
            log.warning("provider build timed out", extra={"provider": p.name})
            return None
        except Exception as exc:
            self.book.failed(
                ws, p.name, sanitize_reason(str(exc) or type(exc).__name__, self._env, self._home)
            )
            log.warning("provider build failed", extra={"provider": p.name}, exc_info=True)
            return None
        parts = {k: sanitize_reason(v, self._env) for k, v in contrib.degraded.items()}
        self.book.ok(ws, p.name, parts)
        return contrib


__all__ = ["CapabilityRegistry", "DegradedBook", "TurnTools", "sanitize_reason"]
