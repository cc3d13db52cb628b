"""Composition: the model registry, the capability registry, runs and channels of one daemon."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from ggd import __version__
from ggd.agent.loopguard import LoopGuardSettings
from ggd.app import (
    CORE_CAPABILITIES,
    Capability,
    CapabilityRegistry,
    ChannelContext,
    DaemonCore,
    RunManager,
    RunOptions,
    Runtime,
    RuntimeOptions,
    SetupContext,
    Supervisor,
    TurnAssembler,
)
from ggd.checkpoints import DEFAULT_IGNORE, CheckpointSettings
from ggd.protocol import Budget
from ggd.providers import build_registry
from ggd.providers.prices import PriceTable, parse_prices
from ggd.rpc.hub import HubInfo

from . import memory
from .config import BudgetLimits, Config

log = logging.getLogger("ggd.daemon")


class ComposeError(Exception):
    """The daemon cannot be assembled (bad provider config); the message says what to fix."""


def config_sections(capabilities: Sequence[Capability]) -> dict[str, type[BaseModel]]:
    """config.json sections the capabilities declare, by key."""
    out: dict[str, type[BaseModel]] = {}
    for cap in capabilities:
        if cap.config_key and cap.config_model is not None:
            if cap.config_key in out:
                raise ValueError(f"two capabilities claim config key {cap.config_key!r}")
            out[cap.config_key] = cap.config_model
    return out


def checkpoint_settings(config: Config) -> CheckpointSettings:
    """config.json `checkpoints` as the store's settings."""
    c = config.checkpoints
    return CheckpointSettings(
        enabled=c.enabled,
        ignore=DEFAULT_IGNORE if c.ignore is None else tuple(c.ignore),
        max_file_bytes=c.maxFileBytes,
        max_files=c.maxFiles,
        max_age_days=c.maxAgeDays,
        max_store_bytes=c.maxStoreBytes,
    )


def run_options(config: Config, ns: argparse.Namespace) -> RunOptions:
    """Run options: flags win over config.json (argparse stops here, above the app layer).

    Raises ComposeError when `prices` is malformed (the message names the key).
    """
    try:
        prices = PriceTable(parse_prices("prices", config.prices))
    except ValueError as exc:
        raise ComposeError(str(exc)) from None
    return RunOptions(
        max_active=ns.max_active_runs or config.maxActiveRuns,
        run_timeout=ns.run_timeout or config.runTimeoutSeconds,
        sandbox=bool(ns.sandbox or config.sandbox),
        default_approval_mode=config.approvalMode,
        max_turns=ns.max_turns or config.maxTurns,
        bash_login_shell=config.bashLoginShell,
        hooks_config=config.hooks,
        loop_guard=LoopGuardSettings(
            enabled=config.loopGuard.enabled,
            identical_calls=config.loopGuard.identicalCalls,
            identical_failures=config.loopGuard.identicalFailures,
        ),
        prices=prices,
        run_budget=_budget(config.budget.run),
        session_budget=_budget(config.budget.session),
        tool_share=config.toolDeclarationShare,
        subagents_max_parallel=config.subagents.maxParallel,
        title_model=None if config.titleModel is True else config.titleModel,
    )


def _budget(limits: BudgetLimits | None) -> Budget | None:
    if limits is None:
        return None
    return Budget(max_cost_usd=limits.maxCostUsd, max_tokens=limits.maxTokens)


async def compose(
    config: Config,
    sections: dict[str, BaseModel],
    ns: argparse.Namespace,
    home: Path,
    workspace: Path,
    *,
    owns_channels: bool,
    capabilities: Sequence[Capability] | None = None,
) -> tuple[DaemonCore, HubInfo]:
    """Build the daemon core; provider probes run here, before any listener opens."""
    from .catalog import all_capabilities

    caps = tuple(capabilities) if capabilities is not None else all_capabilities(os.environ)
    try:
        models = build_registry(
            config.providers_dict(),
            dict(os.environ),
            ns.model,
            home / "credentials.json",
            home=home,
        )
    except ValueError as exc:
        raise ComposeError(str(exc)) from None
    models.prefetch()  # overlaps the capabilities' start below and the client's first requests
    opts = run_options(config, ns)
    runtime = Runtime(
        RuntimeOptions(
            home=home,
            default_workspace=workspace,
            default_model=models.default_model,
            checkpoints=checkpoint_settings(config),
        )
    )
    # A restore a kill interrupted is finished before any client can look at the files.
    await asyncio.to_thread(runtime.checkpoints.recover)
    registry = CapabilityRegistry(
        caps,
        SetupContext(home=home, config=None, env=dict(os.environ), sandbox=opts.sandbox),
        sections,
        core=CORE_CAPABILITIES,
    )
    await registry.start()
    turns = TurnAssembler(models, registry, opts, home, runtime.bus, runtime.checkpoints)
    memory.install()  # bulk loads pause the collector (the daemon's memory policy)
    runs = RunManager(runtime, turns, opts, on_first_run=memory.freeze_start_up)
    runtime.checkpoints.workspace_busy = lambda ws_id: any(
        r.workspace_id == ws_id for r in runs.active.values()
    )
    core = DaemonCore(runtime, runs, registry, Supervisor(), owns_channels=owns_channels)
    info = HubInfo(
        version=__version__,
        demo=bool(models.is_demo),
        models=list(models.models()),
        default_model=models.default_model,
        model_states=models.model_states,
    )
    return core, info


def start_channels(
    core: DaemonCore,
    capabilities: Sequence[Capability],
    *,
    not_owner: str = "another daemon owns the channels",
    off: Sequence[str] = (),
) -> None:
    """Start every capability's channels under the supervisor (or record why they are off).

    `not_owner` is the reason shown when this daemon does not own the channels; `off` names
    capabilities whose channels a flag turned off (`--no-scheduler`).
    """
    for cap in capabilities:
        if cap.channels is None:
            continue
        if not core.owns_channels:
            core.supervisor.disabled(cap.name, not_owner)
            continue
        if cap.name in off:
            core.supervisor.disabled(cap.name, f"disabled by --no-{cap.name}")
            continue
        made = cap.channels(
            ChannelContext(
                services=core,
                config=core.section(cap.config_key or ""),
                own_state=core.registry.state(cap.name),
                env=core.registry.env,
            )
        )
        if isinstance(made, str):
            core.supervisor.disabled(cap.name, made)
            continue
        for channel in made:
            core.supervisor.start(channel)


__all__ = ["ComposeError", "compose", "config_sections", "run_options", "start_channels"]
