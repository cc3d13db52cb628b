"""Turn assembly: the model, the tools the providers build, the prompt and the agent loop of a run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ggd.agent import (
    AgentError,
    AgentLoop,
    AgentOptions,
    ApprovalDecision,
    CompactionSettings,
    DeltaKind,
    PathLocks,
    compact,
    estimate_tokens,
)
from ggd.hooks import HookEngine
from ggd.protocol import SessionEvent
from ggd.protocol import errors as E
from ggd.providers import ProviderRegistry
from ggd.providers.types import ChatProvider, ToolCall
from ggd.tools import ApprovalInfo, Tool, ToolContext
from ggd.tools.images import ImageError, ImageStore

from .admission import RunOptions
from .approvers import Approver, loop_asker
from .bus import SessionBus
from .capabilities import CapabilityRegistry
from .delegate import ClientDelegate
from .events import to_wire
from .extension import ScopeContext, SessionContext, ToolProvider
from .hooks import RunHooks
from .run import Run
from .service import Service
from .todos import plan_sections, todo_tool
from .transcript import SessionTranscript


class TurnAssembler:
    """Builds what one run needs from the model registry and the capability registry."""

    def __init__(
        self,
        models: ProviderRegistry,
        capabilities: CapabilityRegistry,
        opts: RunOptions,
        home: Path,
        bus: SessionBus,
    ) -> None:
        self.models = models
        self.capabilities = capabilities
        self.opts = opts
        self.home = home
        self.bus = bus
        self.path_locks = PathLocks()
        # Prompt attachments and pictures `read` returns (GG_HOME/images, by content).
        self.images = ImageStore(home)
        self.hooks = HookEngine(home, opts.hooks_config)

    def resolve_model(self, svc: Service, model: str | None) -> tuple[ChatProvider, str, str]:
        """(provider, bare model name, provider:model) for a run; invalid params when unknown."""
        model_ref = model or svc.file.model or self.models.default_model
        try:
            provider, bare = self.models.get(model_ref)
        except (ValueError, KeyError):
            raise E.InvalidParamsError(
                f"invalid params: model: unknown model {model_ref!r}"
            ) from None
        return provider, bare, model_ref

    def check_images(self, svc: Service, model: str | None) -> None:
        """Invalid params when a prompt has images and the run's model takes none."""
        model_ref = model or svc.file.model or self.models.default_model
        if self.models.accepts_images(model_ref):
            return
        name = self.models.split(model_ref)[0]
        if self.models.providers[name].is_demo:
            raise E.InvalidParamsError(
                "invalid params: images: the offline demo model takes no images; configure a "
                "model that does in GG_HOME/config.json (docs/providers.md, Images)"
            )
        raise E.InvalidParamsError(
            f"invalid params: images: model {model_ref!r} takes no images; pick one that does "
            f'(--model), or set "images": true (or a list of models) in providers.{name} of '
            "config.json if it reads them (docs/providers.md)"
        )

    def image_urls(self) -> Callable[[str], str | None]:
        """A run's image loader: data URLs by id, each file read once per run."""
        cache: dict[str, str | None] = {}

        def url(image_id: str) -> str | None:
            if image_id not in cache:
                try:
                    cache[image_id] = self.images.data_url(image_id)
                except ImageError:
                    cache[image_id] = None  # the note says it is gone
            return cache[image_id]

        return url

    async def check_model(self, svc: Service, model: str | None) -> None:
        """Invalid params when the provider is unknown or its endpoint does not list the model."""
        await self.check_model_ref(model or svc.file.model or self.models.default_model)

    async def check_model_ref(self, model_ref: str) -> None:
        """Invalid params when no run could use this provider:model reference."""
        problem = await self.models.check_model(model_ref)
        if problem:
            raise E.InvalidParamsError(problem)

    def scope(self, svc: Service) -> ScopeContext:
        """The workspace scope providers check their availability against."""
        return ScopeContext(home=self.home, workspace=svc.workspace)

    def session_context(self, svc: Service, provider: ToolProvider) -> SessionContext:
        """The context one provider builds with: the Service's resources and its own state."""
        return SessionContext(
            home=self.home,
            workspace=svc.workspace,
            session_id=svc.id,
            resources=svc.resources,
            state=svc.state.setdefault(provider.name, {}),
            publish_event=self._publisher(svc.workspace.id),
        )

    def _publisher(self, workspace_id: str) -> Callable[[SessionEvent], None]:
        """Publish a provider's session event on the bus, to the session and its workspace."""

        def publish(event: SessionEvent) -> None:
            self.bus.publish(event, workspace_id)

        return publish

    async def loop_for(
        self,
        run: Run,
        svc: Service,
        approver: Approver,
        provider: ChatProvider,
        bare: str,
        client: ClientDelegate | None = None,
    ) -> AgentLoop:
        """The agent loop of one run, with the tools every available provider built."""
        turn = await self.capabilities.build(
            lambda p: self.session_context(svc, p), self.scope(svc)
        )

        async def approve(call: ToolCall, tool: Tool, info: ApprovalInfo) -> ApprovalDecision:
            return await approver.decide(run, call, tool, info)

        sees_images = self.models.accepts_images(run.model)

        return AgentLoop(
            provider,
            bare,
            [*turn.tools, todo_tool(run, svc)],
            ToolContext(
                workspace=svc.workspace.root,
                log_dir=self.home / "logs" / "tools",
                sandbox=self.opts.sandbox,
                session_id=svc.id,
                run_id=run.id,
                read_roots=tuple(turn.read_roots),
                login_shell=self.opts.bash_login_shell,
                client=client,
                images=self.images if sees_images else None,
            ),
            SessionTranscript(svc),
            _RunSink(run),
            approve,
            run.steering,
            self.path_locks,
            AgentOptions(
                max_turns=self.opts.max_turns,
                gg_home=self.home,
                context_window=self.models.context_window(run.model),
                prompt_sections=[*turn.sections, *plan_sections(run.approval_mode)],
                loop_guard=self.opts.loop_guard,
                image_urls=self.image_urls() if sees_images else None,
                hooks=RunHooks.for_run(self.hooks, run, svc),
            ),
            loop_ask=loop_asker(run),
        )

    async def compact(self, svc: Service, instructions: str | None) -> str | None:
        """Summarise older turns now; refused while a run is active."""
        if svc.active_run_id is not None:
            raise E.RunConflictError("the session has an active run; compact after it finishes")
        await svc.ensure_loaded()  # resolve_model and the transcript read it on the loop
        provider, bare, _ref = self.resolve_model(svc, None)
        try:
            summary = await compact(
                provider, bare, SessionTranscript(svc), CompactionSettings(), None, instructions
            )
        except AgentError as exc:
            raise E.InternalError(str(exc), retryable=exc.retryable) from None
        if summary is not None:
            self.bus.publish(SessionEvent(session_id=svc.id, type="compacted"), svc.workspace.id)
        return summary

    def context(self, svc: Service) -> dict[str, Any]:
        """Estimated context use of the session (what the next request would carry)."""
        ctx = SessionTranscript(svc).context()
        msgs = [m for _, m in ctx.messages]
        model_ref = svc.file.model or self.models.default_model
        window = self.models.context_window(model_ref)
        summary_tokens = (
            estimate_tokens([{"role": "system", "content": ctx.summary}]) if ctx.summary else 0
        )
        return {
            "model": model_ref,
            "context_tokens": estimate_tokens(msgs) + summary_tokens,
            "context_window": window,
            "prompt_budget": CompactionSettings().budget(window),
            "message_count": len(msgs),
            "has_summary": ctx.summary is not None,
        }


class _RunSink:
    """The agent's events to a run; its deltas to the run's delta path (see agent.delta_writer)."""

    __slots__ = ("run",)

    def __init__(self, run: Run) -> None:
        self.run = run

    def __call__(self, ev: Any) -> None:
        cls, fields = to_wire(ev)
        self.run.emit(cls, **fields)

    def delta(self, kind: DeltaKind, text: str) -> None:
        """One streamed delta, as bare text: no event object, no field dict."""
        self.run.emit_delta(kind, text)


__all__ = ["TurnAssembler"]
