"""Turn assembly: the model, the tools the providers build, the prompt and the agent loop of a run."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggd.agent import (
    AgentError,
    AgentLoop,
    AgentOptions,
    ApprovalDecision,
    CompactionSettings,
    DeltaKind,
    PathLocks,
    UsageEvent,
    compact,
    estimate_tokens,
)
from ggd.agent.budget import BudgetLimit
from ggd.agent.toolset import ToolGroup
from ggd.agent.usage import side_request
from ggd.hooks import HookEngine
from ggd.protocol import Budget, SessionEvent, UsageInfo
from ggd.protocol import errors as E
from ggd.protocol.system import ToolDeclarations, ToolGroupInfo
from ggd.providers import ProviderRegistry
from ggd.providers.prices import Spend
from ggd.providers.types import ChatProvider, ToolCall, Usage
from ggd.session.usage import own_usage
from ggd.tools import ApprovalInfo, Tool, ToolContext
from ggd.tools.images import ImageError, ImageStore

from .admission import RunOptions
from .approvers import Approver, loop_asker
from .bus import SessionBus
from .capabilities import CapabilityRegistry
from .checkpoints import Checkpointer
from .child_approvals import child_loop_asker
from .delegate import ClientDelegate
from .events import to_wire
from .extension import ScopeContext, SessionContext, ToolProvider
from .hooks import RunHooks
from .run import Run
from .service import Service
from .todos import plan_sections, todo_tool
from .transcript import SessionTranscript

if TYPE_CHECKING:
    from .subagents import SubagentManager


class TurnAssembler:
    """Builds what one run needs from the model registry and the capability registry."""

    def __init__(
        self,
        models: ProviderRegistry,
        capabilities: CapabilityRegistry,
        opts: RunOptions,
        home: Path,
        bus: SessionBus,
        checkpoints: Checkpointer | None = None,
    ) -> None:
        self.models = models
        self.capabilities = capabilities
        self.opts = opts
        self.home = home
        self.bus = bus
        self.checkpoints = checkpoints
        self.path_locks = PathLocks()
        # Set by the RunManager: adds the `task` tool and narrows a subagent's tools and prompt.
        self.subagents: SubagentManager | None = None
        # Prompt attachments and pictures `read` returns (GG_HOME/images, by content).
        self.images = ImageStore(home)
        self.hooks = HookEngine(home, opts.hooks_config)
        # (workspace id, provider:model) -> the deferrable tool groups of its last run's tool set,
        # declared up front or deferred (gg/system.info shows them).
        self.tool_plans: dict[tuple[str, str], list[ToolGroup]] = {}

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

        tools: list[Tool] = [*turn.tools, todo_tool(run, svc)]
        sections = [*turn.sections, *plan_sections(run.approval_mode)]
        max_turns = self.opts.max_turns
        if self.subagents is not None:
            tools, sections, max_turns = await self.subagents.shape(
                run, svc.workspace.root, tools, sections, max_turns
            )
        sees_images = self.models.accepts_images(run.model)

        loop = AgentLoop(
            provider,
            bare,
            tools,
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
                checkpoint=self.checkpoints.tool_hook(svc) if self.checkpoints else None,
            ),
            SessionTranscript(
                svc, partial(self.checkpoints.settled, svc) if self.checkpoints else None
            ),
            _RunSink(run),
            approve,
            run.steering,
            self.path_locks,
            self._options(run, svc, sections, _effort(run, provider, bare), max_turns),
            # A subagent's question goes to its ancestors' clients too.
            loop_ask=child_loop_asker(run) if run.lineage is not None else loop_asker(run),
        )
        self.tool_plans[(svc.workspace.id, run.model)] = loop.tools.groups
        return loop

    def tool_declarations(self, workspace_id: str, refs: list[str]) -> dict[str, ToolDeclarations]:
        """Per model: the up-front budget and the groups its last run here declared or deferred."""
        out: dict[str, ToolDeclarations] = {}
        for ref in refs:
            window = self.models.context_window(ref)
            share = self.opts.tool_share
            budget = int(window * share) if window and share > 0 else None
            groups = self.tool_plans.get((workspace_id, ref))
            out[ref] = ToolDeclarations(
                budget_tokens=budget,
                groups=None
                if groups is None
                else [
                    ToolGroupInfo(
                        name=g.name, tools=len(g.tools), tokens=g.tokens, deferred=g.deferred
                    )
                    for g in groups
                ],
            )
        return out

    def _options(
        self, run: Run, svc: Service, sections: Any, effort: str | None, max_turns: int
    ) -> AgentOptions:
        """The loop's limits, prompt sections, hooks, price, budgets and reasoning effort."""
        before = Spend.of_records(e.data for e in own_usage(svc.file.header, svc.file.entries))
        return AgentOptions(
            max_turns=max_turns,
            gg_home=self.home,
            context_window=self.models.context_window(run.model),
            prompt_sections=sections,
            loop_guard=self.opts.loop_guard,
            # Parallel task calls are bounded by subagents.maxParallel, not below it.
            max_parallel=max(4, self.opts.subagents_max_parallel),
            turn_gate=run.tree_budget.take if run.tree_budget is not None else None,
            tree_spend=run.tree_budget.spend if run.tree_budget is not None else None,
            # A subagent's answer fires SubagentStop instead of Stop (docs/hooks.md).
            hooks=RunHooks.for_run(
                self.hooks,
                run,
                svc,
                stop_event="SubagentStop" if run.lineage is not None else "Stop",
            ),
            price=self.opts.prices.get(run.model),
            budgets=self._budgets(run, before),
            session_before=before,
            reasoning_effort=effort,
            tool_share=self.opts.tool_share,
            # A stored image's data URL for requests; None when the model takes no images.
            image_urls=self.image_urls() if self.models.accepts_images(run.model) else None,
        )

    def _budgets(self, run: Run, session_before: Spend) -> tuple[BudgetLimit, ...]:
        """The budgets a run counts against: its own (or config's run budget) and the session's."""
        out: list[BudgetLimit] = []
        own = run.budget or self.opts.run_budget
        if _limits(own):
            assert own is not None
            hint = (
                'the job\'s "budget" in the scheduler config'
                if run.budget_name == "job budget"
                else '`gg --max-cost-usd USD` / `--max-tokens N`, gg/run.start "budget", or '
                '"budget": {"run": {...}} in GG_HOME/config.json'
            )
            name = run.budget_name if run.budget is not None else "run budget"
            out.append(BudgetLimit(name, own.max_cost_usd, own.max_tokens, Spend(), hint))
        session = self.opts.session_budget
        if _limits(session):
            assert session is not None
            hint = '"budget": {"session": {...}} in GG_HOME/config.json, or a new session'
            out.append(
                BudgetLimit(
                    "session budget",
                    session.max_cost_usd,
                    session.max_tokens,
                    session_before,
                    hint,
                )
            )
        return tuple(out)

    async def compact(self, svc: Service, instructions: str | None) -> str | None:
        """Summarise older turns now; refused while a run is active."""
        if svc.active_run_id is not None:
            raise E.RunConflictError("the session has an active run; compact after it finishes")
        await svc.ensure_loaded()  # resolve_model and the transcript read it on the loop
        provider, bare, ref = self.resolve_model(svc, None)
        transcript = SessionTranscript(svc)
        price = self.opts.prices.get(ref)

        async def count(usage: Usage | None) -> None:
            # The summary request is paid for like any other: the session's totals include it.
            _used, _cost, record = side_request(usage, price, bare, "compaction")
            await transcript.append_usage(record)

        try:
            summary = await compact(
                provider, bare, transcript, CompactionSettings(), None, instructions, count
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
            "usage": self.session_usage(svc),
        }

    @staticmethod
    def session_usage(svc: Service) -> UsageInfo | None:
        """Tokens and cost of every model request the session made (null before the first)."""
        spend = Spend.of_records(e.data for e in own_usage(svc.file.header, svc.file.entries))
        return UsageInfo(**spend.wire()) if spend.requests else None


class _RunSink:
    """The agent's events to a run; its deltas to the run's delta path (see agent.delta_writer)."""

    __slots__ = ("run",)

    def __init__(self, run: Run) -> None:
        self.run = run

    def __call__(self, ev: Any) -> None:
        cls, fields = to_wire(ev)
        self.run.emit(cls, **fields)
        if isinstance(ev, UsageEvent) and ev.run is not None:
            self.run.usage = UsageInfo(**ev.run)  # so far: a run stopped early still reports it

    def delta(self, kind: DeltaKind, text: str) -> None:
        """One streamed delta, as bare text: no event object, no field dict."""
        self.run.emit_delta(kind, text)


def _effort(run: Run, provider: ChatProvider, bare: str) -> str | None:
    """The run's reasoningEffort, else its model's configured one (provider or modelParams).

    Resolved here so every wire kind gets it as ChatRequest.reasoning_effort.
    """
    if run.reasoning_effort:
        return run.reasoning_effort
    params_for = getattr(provider, "params_for", None)
    params = params_for(bare) if callable(params_for) else None
    effort = getattr(params, "reasoning_effort", None)
    return effort if isinstance(effort, str) else None


def _limits(budget: Budget | None) -> bool:
    return budget is not None and (budget.max_cost_usd is not None or budget.max_tokens is not None)


__all__ = ["TurnAssembler"]
