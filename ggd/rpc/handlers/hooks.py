"""gg/hooks.* handlers: list what runs here, test one event with sample input, trust the
workspace's .gg/hooks.json. Test and trust are refused over a remote connection (they run or
enable commands on this machine)."""

from __future__ import annotations

import asyncio

from ggd.app import Handler, HandlerContext
from ggd.app.hooks import (
    HookCommand,
    HookConfigError,
    Scope,
    load,
    transcript_path,
    trust_workspace,
)
from ggd.protocol import errors as E
from ggd.protocol import methods as M
from ggd.protocol.base import Empty
from ggd.protocol.hooks import (
    HookInfo,
    HookRunInfo,
    HooksListResult,
    HooksTestParams,
    HooksTestResult,
    HooksTrustResult,
)

from ..hub import hub_of


def _local_only(ctx: HandlerContext, what: str) -> None:
    if ctx.remote:
        raise E.CapabilityUnavailableError(
            f"{what} is refused over a remote connection; run it on the daemon's machine"
        )


def _info(h: HookCommand) -> HookInfo:
    return HookInfo.model_validate(
        {
            "event": h.event,
            "matcher": h.matcher,
            "command": h.command,
            "timeout": h.timeout,
            "origin": h.origin,
        }
    )


async def hooks_list(ctx: HandlerContext, params: Empty) -> HooksListResult:
    """The hooks of this workspace and the workspace file's trust state."""
    engine = hub_of(ctx).runs.turns.hooks
    loaded = await asyncio.to_thread(load, engine.home, ctx.workspace.root, engine.config_section)
    return HooksListResult(
        hooks=[_info(h) for h in loaded.hooks],
        workspace_file=loaded.workspace_file,
        untrusted=[_info(h) for h in loaded.untrusted],
        errors=loaded.errors,
    )


async def hooks_test(ctx: HandlerContext, params: HooksTestParams) -> HooksTestResult:
    """Fire one event's hooks now, in this workspace, with sample input."""
    _local_only(ctx, "gg/hooks.test")
    engine = hub_of(ctx).runs.turns.hooks
    problems: list[tuple[str, str, str]] = []
    scope = Scope(
        session_id="s_hooks_test",
        workspace=ctx.workspace.root,
        transcript_path=transcript_path(engine.home, "s_hooks_test"),
        report=lambda ev, cmd, why: problems.append((ev, cmd, why)),
    )
    args = params.tool_input or (
        {"command": "echo hello"} if params.tool_name == "bash" else {"path": "README.md"}
    )
    out = await engine.sample(scope, params.event, params.tool_name, args, params.prompt)
    failures = {cmd: why for _ev, cmd, why in problems}
    runs = [
        HookRunInfo(
            command=cmd,
            exit_code=run.exit_code,
            stdout=run.stdout,
            stderr=run.stderr,
            error=run.error or failures.get(cmd) or None,
        )
        for cmd, run in out.runs
    ]
    decision = out.decision if out.decision in ("allow", "deny", "ask") else None
    return HooksTestResult.model_validate(
        {
            "input": out.stdin,
            "runs": [r.wire() for r in runs],
            "blocked": out.blocked,
            "reason": out.reason or out.decision_reason,
            "decision": decision,
            "context": out.context_text,
        }
    )


async def hooks_trust(ctx: HandlerContext, params: Empty) -> HooksTrustResult:
    """Trust the workspace's .gg/hooks.json as it is now."""
    _local_only(ctx, "gg/hooks.trust")
    engine = hub_of(ctx).runs.turns.hooks
    try:
        count = await asyncio.to_thread(trust_workspace, engine.home, ctx.workspace.root)
    except HookConfigError as exc:
        raise E.InvalidParamsError(f"invalid params: {exc}") from None
    return HooksTrustResult(hooks=count)


HANDLERS: dict[str, Handler] = {
    M.HOOKS_LIST.name: hooks_list,
    M.HOOKS_TEST.name: hooks_test,
    M.HOOKS_TRUST.name: hooks_trust,
}
