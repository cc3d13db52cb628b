"""The whole extension surface of ggd in one module: what a capability implements and is given.

A capability is a value (`Capability`) that the composition root lists once. It may bring:

- **ToolProviders**: `available(scope)` says whether it can exist here (an expected absence with a
  reason: no Chromium, no config; never logged as an error, never advertised); `build(session)`
  returns a `Contribution` (tools, a system-prompt section, extra read-only roots) for one turn.
  An exception in `build` degrades that provider alone (reported in `degradedProviders` until it
  builds again); the turn goes on with every other tool. Anything a provider opens for a session
  goes on `session.resources`, the Service's exit stack, which is closed with the Service.
- **Channels**: long-lived daemon tasks (`run()` until `stop()`), started under one supervisor that
  records a crash as `failed` and leaves the channel stopped.
- **Protocol rows and handlers**: `MethodSpec`s from the capability's own protocol module and an
  `async def handler(ctx, params)` per request row; they join the one method table.
- **Errors**: its own `GgError` subclasses (in its package's `errors.py`), listed in `errors`;
  they join the one error table (a code or symbol claimed twice is a start-up error).
- **A config section**: a pydantic model validated under `config.json[config_key]`.

Nothing here knows a concrete capability; the registry computes what is advertised from the values.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

from ggd.agent import PromptSection
from ggd.protocol import Budget, MethodSpec, SessionEvent
from ggd.protocol.errors import GgError
from ggd.tools import Tool

from .fanout import Subscriber
from .workspaces import Workspace

if TYPE_CHECKING:
    from .approvers import Approver
    from .run import Run

__all__ = [
    "Caller",
    "Capability",
    "Channel",
    "ChannelContext",
    "Contribution",
    "DaemonServices",
    "Handler",
    "HandlerContext",
    "PromptSection",
    "ScopeContext",
    "SessionContext",
    "SetupContext",
    "StateContext",
    "ToolProvider",
    "TurnRequest",
]


C = TypeVar("C", bound=BaseModel)


def config_section(config: BaseModel | None, model: type[C]) -> C:
    """A capability's validated config section, or its defaults when the daemon has none.

    The defaults are constructed, not validated (what `model()` does for defaults anyway): the
    config models defer their validators, so a section that is absent never builds one.
    """
    return config if isinstance(config, model) else model.model_construct()


S = TypeVar("S")


def checked_state(state: object, kind: type[S]) -> S:
    """A capability's state as the type its code expects; anything else is a wiring bug."""
    if not isinstance(state, kind):
        raise TypeError(f"capability state is {type(state).__name__}, not {kind.__name__}")
    return state


@dataclass(frozen=True)
class SetupContext:
    """What a capability's factories get once at daemon start."""

    home: Path
    config: BaseModel | None
    env: Mapping[str, str]
    sandbox: bool = False
    # The capability's per-daemon state, made at its first use: a provider asks for it in
    # available() or build(), never in its constructor or start() (the core is not made yet).
    own_state: Callable[[], object] = lambda: None

    def section(self, model: type[C]) -> C:
        """The capability's config section (its defaults when there is none)."""
        return config_section(self.config, model)

    def state(self, kind: type[S]) -> S:
        """The capability's per-daemon state, checked to be a `kind`."""
        return checked_state(self.own_state(), kind)


@dataclass
class ScopeContext:
    """A workspace as seen by `ToolProvider.available` (no session yet)."""

    home: Path
    workspace: Workspace


@dataclass
class SessionContext(ScopeContext):
    """One session's turn as seen by `ToolProvider.build`.

    `resources` is the Service's exit stack: push what you open there and it is closed when the
    Service is evicted or the daemon stops. `state` is a per-Service, per-provider dict for
    memoized connections and caches. `publish_event` sends a gg/session.event of this session
    (e.g. artifact_created) to its subscribers and, for list-level types, its workspace.
    """

    session_id: str = ""
    resources: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)
    state: dict[str, Any] = field(default_factory=dict)
    publish_event: Callable[[SessionEvent], None] = lambda _event: None


@dataclass
class Contribution:
    """What one provider adds to a turn.

    `degraded` names parts of the provider that failed while the rest built (an MCP server of
    several): each is reported as `<provider>:<part>` in degradedProviders until it builds again.
    """

    tools: Sequence[Tool] = ()
    prompt: PromptSection | None = None
    read_roots: Sequence[Path] = ()
    degraded: Mapping[str, str] = field(default_factory=dict)


class ToolProvider:
    """A source of tools. Subclass it and override what you need; every hook has a default.

    `capabilities` are the strings advertised in `initialize` and `gg/system.info` while the
    provider is available in the connection's workspace.
    """

    name: str = ""
    capabilities: tuple[str, ...] = ()

    async def start(self) -> None:
        """Once at daemon start, before listeners open (probe a binary, warm a cache)."""

    def available(self, scope: ScopeContext) -> str | None:
        """None when the provider can exist here, else the reason it cannot (cheap, no I/O waits)."""
        return None

    async def build(self, session: SessionContext) -> Contribution:
        """The tools (and prompt section, read roots) for one turn; raise to degrade."""
        return Contribution()

    async def aclose(self) -> None:
        """Once at daemon stop."""


class Channel(Protocol):
    """A long-lived daemon task (scheduler, Telegram) under the supervisor."""

    name: str

    async def run(self) -> None:
        """Serve until stopped; raising marks the channel failed (it is not restarted)."""
        ...

    async def stop(self) -> None:
        """Ask `run` to return soon."""
        ...


@dataclass
class TurnRequest:
    """A run the daemon starts by itself (a scheduled job, a Telegram message).

    `session_id=None` creates a session named `session_name`. `approver` is required: there is
    no implicit allow.
    """

    workspace: Workspace
    prompt: str
    approver: Approver
    session_id: str | None = None
    session_name: str = ""
    model: str | None = None
    timeout: float | None = None
    # A scheduled job's spending limits for this run (reported as the "job budget").
    budget: Budget | None = None


class DaemonServices(Protocol):
    """The daemon's core as capability handlers and channels see it."""

    @property
    def home(self) -> Path:
        """GG_HOME."""
        ...

    @property
    def owns_channels(self) -> bool:
        """False in a sidecar that found another daemon owning the channels."""
        ...

    def section(self, key: str) -> BaseModel | None:
        """A capability's validated config section."""
        ...

    def workspace(self, workspace_id: str) -> Workspace | None:
        """A known workspace by id."""
        ...

    def default_workspace(self) -> Workspace:
        """The daemon's default workspace."""
        ...

    async def start_turn(self, req: TurnRequest) -> Run:
        """Start one run through the same runtime every client uses."""
        ...

    def broadcast(self, method: str, params: dict[str, Any], workspace_id: str | None) -> int:
        """Send a notification to every connection of a workspace (None: every connection)."""
        ...

    def channel_state(self, name: str) -> tuple[str, str | None] | None:
        """(state, error) of a supervised channel, or None when no such channel was registered."""
        ...

    def steer(self, session_id: str, text: str, follow_up: bool) -> Run:
        """Queue text into the session's active run (next model boundary, or after the answer)."""
        ...

    def cancel(self, run: Run) -> None:
        """Cancel a run started through start_turn (its tools are killed)."""
        ...


class Caller(Subscriber, Protocol):
    """The connection a request came on, as a handler sees it (`ggd.rpc.Connection`)."""

    remote: bool
    # The sessions and runs this connection follows (dropped with it when it closes).
    session_subs: set[str]
    run_subs: set[str]


@dataclass
class HandlerContext:
    """What every request handler gets besides its (validated) params, core and capability alike.

    `notify` sends a notification to the calling connection (never shed); `remote` says whether
    it came over the network (WebSocket). `caller` is that connection itself (subscriptions),
    `client` the requests gg may send back to it (its editor tools), `config` the capability's
    validated config section, and `state(kind)` the capability's per-daemon state, made once
    from its declaration.
    """

    services: DaemonServices
    workspace: Workspace
    config: BaseModel | None
    notify: Callable[[str, dict[str, Any]], bool]
    remote: bool = False
    caller: Caller | None = None
    client: object | None = None
    own_state: object = None
    # The daemon's environment as it was composed (never read from os.environ in a handler);
    # a context made by hand (a unit test) sees the process's.
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def section(self, model: type[C]) -> C:
        """The capability's config section (its defaults when there is none)."""
        return config_section(self.config, model)

    def state(self, kind: type[S]) -> S:
        """The capability's per-daemon state, checked to be a `kind` (a wrong kind is a bug)."""
        return checked_state(self.own_state, kind)

    @property
    def connection(self) -> Caller:
        """The calling connection (every call through the table has one)."""
        if self.caller is None:
            raise RuntimeError("no calling connection")
        return self.caller


@dataclass(frozen=True)
class StateContext:
    """What a capability's `state` factory gets: once per daemon, at the state's first use."""

    home: Path
    config: BaseModel | None
    env: Mapping[str, str]
    services: DaemonServices

    def section(self, model: type[C]) -> C:
        """The capability's config section (its defaults when there is none)."""
        return config_section(self.config, model)


@dataclass
class ChannelContext:
    """What a capability's channel factory gets (`state`: the capability's per-daemon state)."""

    services: DaemonServices
    config: BaseModel | None
    own_state: object = None
    # The daemon's environment as it was composed (as HandlerContext.env).
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def state(self, kind: type[S]) -> S:
        """The capability's per-daemon state, checked to be a `kind`."""
        return checked_state(self.own_state, kind)

    def section(self, model: type[C]) -> C:
        """The capability's config section (its defaults when there is none)."""
        return config_section(self.config, model)


Handler = Callable[[HandlerContext, Any], Awaitable[Any]]


@dataclass(frozen=True)
class Capability:
    """One capability package's contribution to the daemon, listed once by the composition root.

    `state` makes what its handlers share for the daemon's life (a store, a cache), once.
    `channels` returns the channels to supervise, or a string: the reason they are disabled.
    """

    name: str
    summary: str
    config_key: str | None = None
    config_model: type[BaseModel] | None = None
    # The capability's per-daemon state, made once by the registry; its handlers get it as
    # `ctx.state(kind)`. Never a module global: a test runs several daemons in one process.
    state: Callable[[StateContext], object] | None = None
    providers: Callable[[SetupContext], Sequence[ToolProvider]] | None = None
    channels: Callable[[ChannelContext], Sequence[Channel] | str] | None = None
    methods: Sequence[MethodSpec] = ()
    handlers: Mapping[str, Handler] = field(default_factory=dict)
    # Its own protocol errors (the generic ones, e.g. invalid_params, are the core's).
    errors: Sequence[type[GgError]] = ()
