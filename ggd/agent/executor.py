"""Runs one batch of tool calls: approvals first, then parallel groups and barriers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ggd.providers.types import ToolCall
from ggd.tools.base import TOOL_APPROVED, ApprovalInfo, Tool, ToolContext, ToolError, ToolResult
from ggd.tools.client import TOOL_CALL_ID

from .approval import Approver, needs_asking
from .events import Sink, ToolCallFinishEvent, ToolCallStartEvent, safe_emit, truncate_for_display
from .hooks import HOOK_ALLOW, HOOK_ASK, ToolHooks
from .locks import PathLocks
from .messages import CANCELED, tool_message
from .toolset import ToolSet
from .validation import validate_arguments

log = logging.getLogger(__name__)

# A tool output beyond this is cut before it reaches the transcript and the model.
MODEL_OUTPUT_LIMIT = 200_000
# How long a canceled batch waits for its tools to wind down (kill their processes).
CANCEL_GRACE_SECONDS = 10.0

Append = Callable[[dict[str, Any]], Awaitable[str]]


@dataclass
class _Item:
    call: ToolCall
    tool: Tool | None = None
    info: ApprovalInfo | None = None
    result: ToolResult | None = None
    started: bool = False
    appended: bool = False
    announced: bool = False
    saving: asyncio.Future[str] | None = None  # the append of the result, once started
    approved: bool = False  # the approver was asked and allowed it
    context: str = ""  # a PreToolUse hook's additional context, added to the result


def _error(text: str) -> ToolResult:
    return ToolResult(output=text, is_error=True)


def _read_only(item: _Item) -> bool:
    """A call that cannot change files (no checkpoint around it)."""
    return item.info is not None and item.info.risk == "read_only"


def _exc_text(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


class ToolExecutor:
    """Executes the tool calls of one assistant message; each result is saved, then announced.

    A result is appended to the transcript as soon as its tool finishes and only then is
    `tool_call_finish` emitted, so a client that saw the event can rely on the result surviving
    a crash. Inside a parallel group the transcript therefore holds results in completion order;
    `messages.repair` puts them back in call order for every model request.
    """

    def __init__(
        self,
        tools: Sequence[Tool] | ToolSet,
        ctx: ToolContext,
        sink: Sink,
        approver: Approver,
        path_locks: PathLocks,
        append: Append,
        max_parallel: int = 4,
        display_limit: int = 8 * 1024,
        hooks: ToolHooks | None = None,
    ) -> None:
        # Shared with the loop: a deferred tool loaded by tool_search (or called by name) runs.
        self._tools = tools if isinstance(tools, ToolSet) else ToolSet(tools)
        self._ctx = ctx
        self._sink = sink
        self._approver = approver
        self._locks = path_locks
        self._append = append
        self._max_parallel = max(1, max_parallel)
        self._display_limit = display_limit
        self._hooks = hooks

    async def run_batch(self, calls: list[ToolCall]) -> None:
        """Approve every call in order, then run them; on cancel record canceled results."""
        items = [self._prepare(c) for c in calls]
        try:
            for item in items:
                await self._approve(item)
            for group in self._groups(items):
                await self._run_group(group)
        except asyncio.CancelledError:
            for item in items:
                if item.started and item.result is None:
                    item.result = _error(CANCELED)
                await self._record(item)
                if item.started and not item.announced:
                    if item.saving is not None:  # a write the cancel interrupted: let it land
                        with contextlib.suppress(Exception):
                            await asyncio.shield(item.saving)
                    self._emit_finish(item)
            raise

    def _prepare(self, call: ToolCall) -> _Item:
        item = _Item(call=call, tool=self._tools.get(call.name))
        if item.tool is None:
            item.result = _error(f"unknown tool: {call.name}")
            return item
        problem = validate_arguments(item.tool.parameters, call.arguments)
        if problem is not None:
            item.result = _error(f"invalid arguments for {call.name}: {problem}")
            return item
        try:
            item.info = item.tool.describe(call.arguments, self._ctx)
        except ToolError as exc:
            item.result = _error(_exc_text(exc))
        except Exception as exc:
            log.exception("describe() of tool %s failed", call.name)
            item.result = _error(f"tool failed: {_exc_text(exc)}")
        return item

    async def _approve(self, item: _Item) -> None:
        if item.result is not None or item.tool is None or item.info is None:
            return
        try:
            await item.tool.precheck(item.call.arguments, self._ctx)
            item.info = await item.tool.describe_live(item.call.arguments, self._ctx, item.info)
        except ToolError as exc:
            item.result = _error(_exc_text(exc))
            return
        except Exception as exc:
            log.exception("precheck() of tool %s failed", item.call.name)
            item.result = _error(f"tool failed: {_exc_text(exc)}")
            return
        if self._hooks is not None and not await self._pre_tool_hooks(item):
            return
        if not needs_asking(item.info):
            return
        try:
            decision = await self._approver(item.call, item.tool, item.info)
        except Exception:
            # A broken approver must never turn into an allow.
            log.exception("approver failed for tool %s", item.call.name)
            item.result = _error("denied: the approval could not be obtained")
            return
        if not decision.allow:
            item.result = _error(f"denied: {decision.reason}" if decision.reason else "denied")
        item.approved = decision.allow

    async def _pre_tool_hooks(self, item: _Item) -> bool:
        """PreToolUse: a deny is final (whatever the mode); allow and ask go to the approver,
        which still applies plan mode and the dangerous-command rule. False: refused here."""
        assert self._hooks is not None and item.tool is not None and item.info is not None
        try:
            verdict = await self._hooks.pre_tool(item.call, item.tool, item.info)
        except Exception:
            log.exception("PreToolUse hooks failed for tool %s", item.call.name)
            return True
        item.context = verdict.context
        if verdict.decision == "deny":
            why = verdict.reason or "no reason given"
            item.result = _error(f"denied by a PreToolUse hook: {why}")
            return False
        if verdict.decision == "allow":
            item.info = replace(item.info, extra={**item.info.extra, HOOK_ALLOW: True})
        elif verdict.decision == "ask":
            extra = {**item.info.extra, HOOK_ASK: verdict.reason or True}
            item.info = replace(item.info, needs_approval=True, extra=extra)
        return True

    def _groups(self, items: list[_Item]) -> Iterator[list[_Item]]:
        group: list[_Item] = []
        for item in items:
            if item.result is None and item.tool is not None and item.tool.parallel_safe:
                group.append(item)
                continue
            if group:
                yield group
                group = []
            yield [item]
        if group:
            yield group

    async def _run_group(self, group: list[_Item]) -> None:
        pending = [it for it in group if it.result is None]
        for item in group:
            if item.result is not None:
                # Refused before running (unknown, invalid, denied): still shown as a card.
                self._emit_start(item)
                await self._record(item)
                self._emit_finish(item)
        if not pending:
            return
        sem = asyncio.Semaphore(self._max_parallel)

        async def guarded(item: _Item) -> None:
            async with sem:
                await self._run_one(item)

        tasks = [asyncio.create_task(guarded(it)) for it in pending]
        try:
            await asyncio.gather(*tasks)
        except asyncio.CancelledError:
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks, timeout=CANCEL_GRACE_SECONDS)
            raise

    async def _run_one(self, item: _Item) -> None:
        assert item.tool is not None
        item.started = True
        self._emit_start(item)
        args = item.call.arguments
        TOOL_CALL_ID.set(item.call.id)  # this task's own context: parallel calls do not mix
        TOOL_APPROVED.set(item.approved)
        checkpoint = None if _read_only(item) else self._ctx.checkpoint
        if checkpoint is not None:  # the workspace as it was, so this call can be undone
            await checkpoint("before")
        try:
            paths = item.tool.write_paths(args, self._ctx)
            async with self._locks.hold(paths):
                result = await item.tool.run(args, self._ctx)
            if not isinstance(result, ToolResult):
                result = _error("tool failed: it returned no result")
        except ToolError as exc:
            result = _error(_exc_text(exc))
        except Exception as exc:
            log.exception("tool %s raised", item.call.name)
            result = _error(f"tool failed: {_exc_text(exc)}")
        result = await self._post_tool_hooks(item, result)
        if len(result.output) > MODEL_OUTPUT_LIMIT:
            cut = len(result.output) - MODEL_OUTPUT_LIMIT
            result = ToolResult(
                output=result.output[:MODEL_OUTPUT_LIMIT] + f"\n[... {cut} characters cut]",
                is_error=result.is_error,
                details=result.details,
                images=result.images,
            )
        item.result = result
        await self._record(item)  # durable first: the finish event promises the result exists
        if checkpoint is not None:  # recorded on the tool's result node
            await checkpoint("after")
        self._emit_finish(item)

    async def _post_tool_hooks(self, item: _Item, result: ToolResult) -> ToolResult:
        """PostToolUse: what the hooks say (and PreToolUse's context) is added for the model."""
        notes = [item.context] if item.context else []
        if self._hooks is not None:
            try:
                note = await self._hooks.post_tool(item.call, result)
            except Exception:
                log.exception("PostToolUse hooks failed for tool %s", item.call.name)
                note = ""
            if note:
                notes.append(note)
        if not notes:
            return result
        output = "\n\n".join([result.output, *notes]) if result.output else "\n\n".join(notes)
        return replace(result, output=output)

    async def _record(self, item: _Item) -> None:
        if item.appended:
            return
        result = item.result or _error(CANCELED)
        item.appended = True
        # Shielded: a cancel that lands while the result is being written must neither lose it
        # (appended is already True) nor write it twice; the write finishes, then cancel proceeds.
        item.saving = asyncio.ensure_future(
            self._append(
                tool_message(
                    item.call.id, item.call.name, result.output, result.is_error, result.images
                )
            )
        )
        await asyncio.shield(item.saving)

    def _emit_start(self, item: _Item) -> None:
        summary = item.call.name
        if item.tool is not None:
            try:
                summary = item.tool.summary(item.call.arguments)
            except Exception:
                log.debug("summary() of tool %s failed", item.call.name, exc_info=True)
        safe_emit(
            self._sink,
            ToolCallStartEvent(
                tool_call_id=item.call.id,
                tool_name=item.call.name,
                summary=summary,
                arguments=item.call.arguments,
            ),
        )

    def _emit_finish(self, item: _Item) -> None:
        item.announced = True
        result = item.result or _error(CANCELED)
        safe_emit(
            self._sink,
            ToolCallFinishEvent(
                tool_call_id=item.call.id,
                tool_name=item.call.name,
                is_error=result.is_error,
                output=truncate_for_display(result.output, self._display_limit),
                details=result.details,
            ),
        )
