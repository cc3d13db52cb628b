"""Plan mode's prompt and the `todo_write` tool: the session's live todo list.

The list is kept with the session as a `todos` journal entry (the whole list each time), so it
survives a restart and follows the branch the session has checked out: the current list is the
last `todos` entry on the active path. Each successful call also emits a `plan_updated` run event,
after the entry is durable, so every attached client redraws its list.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ggd.agent import PromptSection
from ggd.protocol import events as W
from ggd.session import Entry
from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .policy import PLAN_MODE
from .run import Run
from .service import Service

TODO_TOOL = "todo_write"
TODOS_KIND = "todos"
STATUSES = ("pending", "in_progress", "completed")
MAX_ITEMS = 100
MAX_CONTENT = 500

# Last among the sections (after AGENTS.md, skills, memory): the prefix before it is the same
# in every mode, and within plan mode the whole prompt stays the same from turn to turn.
PLAN_SECTION = PromptSection(
    "Plan mode",
    "The session is in plan mode. Only read-only tools run here: writes, edits and commands "
    "that change anything are refused. Research the task with the read-only tools, keep the "
    "todo list current with todo_write, then end your answer with a concrete, numbered plan "
    "(files to change, what to change, how to check it). Do not attempt the changes: the user "
    "reviews the plan and switches the approval mode, and the next turn carries it out.",
    order=1000,
)


def plan_sections(mode: str) -> list[PromptSection]:
    """The prompt sections an approval mode adds (plan mode's instructions, else none)."""
    return [PLAN_SECTION] if mode == PLAN_MODE else []


def validate_todos(raw: Any) -> list[dict[str, str]]:
    """The todo list as saved, or a ToolError saying exactly what is wrong with it."""
    if not isinstance(raw, list):
        raise ToolError("todos must be a list of {content, status} items (the whole list)")
    if len(raw) > MAX_ITEMS:
        raise ToolError(f"todos has {len(raw)} items; at most {MAX_ITEMS}")
    out: list[dict[str, str]] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ToolError(f"todos[{i}] must be an object with content and status")
        unknown = sorted(set(item) - {"content", "status", "id", "activeForm", "priority"})
        if unknown:
            raise ToolError(f"todos[{i}] has unknown keys {unknown}; use content and status")
        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ToolError(f"todos[{i}].content must be a non-empty string")
        if len(content) > MAX_CONTENT:
            raise ToolError(
                f"todos[{i}].content is {len(content)} characters; at most {MAX_CONTENT}"
            )
        status = item.get("status")
        if status not in STATUSES:
            raise ToolError(f"todos[{i}].status is {status!r}; use one of {', '.join(STATUSES)}")
        out.append({"content": content.strip(), "status": str(status)})
    return out


def render(todos: Sequence[dict[str, str]]) -> str:
    """The list as the model reads it back: one line per item with a status mark."""
    if not todos:
        return "The todo list is now empty."
    marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
    done = sum(1 for t in todos if t["status"] == "completed")
    lines = [f"Todo list saved ({done}/{len(todos)} completed):"]
    lines += [f"{marks[t['status']]} {t['content']}" for t in todos]
    return "\n".join(lines)


def current(path: Sequence[Entry]) -> list[dict[str, str]]:
    """The last saved list on a path of entries (the session's active path); empty if none."""
    for entry in reversed(path):
        if entry.kind == TODOS_KIND:
            todos = entry.data.get("todos")
            if isinstance(todos, list):
                return [
                    {"content": str(t.get("content", "")), "status": str(t.get("status"))}
                    for t in todos
                    if isinstance(t, dict) and t.get("status") in STATUSES
                ]
            return []
    return []


Save = Callable[[list[dict[str, str]]], Awaitable[None]]


class TodoWriteTool(Tool):
    """Replace the session's todo list with the one given (the whole list each call)."""

    name = TODO_TOOL
    # Declared in every request: kept short (bench/context.py measures it).
    description = (
        "Your todo list for multi-step work, shown live to the user. Send the WHOLE list each "
        "time; one item in_progress at a time, mark items completed when done."
    )
    parameters = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string"},
                        "status": {"type": "string", "enum": list(STATUSES)},
                    },
                    "required": ["content", "status"],
                },
            }
        },
        "required": ["todos"],
    }

    def __init__(self, save: Save) -> None:
        self._save = save

    def summary(self, args: dict[str, Any]) -> str:
        """`todo_write 2/5 done`."""
        todos = args.get("todos")
        if not isinstance(todos, list):
            return TODO_TOOL
        done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed")
        return f"{TODO_TOOL} {done}/{len(todos)} done"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Never asks: it writes only the session's own list (it runs in plan mode too)."""
        return ApprovalInfo(summary=self.summary(args), risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate, save durably, then announce."""
        todos = validate_todos(args.get("todos"))
        await self._save(todos)
        return ToolResult(output=render(todos), details={"todos": todos})


def todo_tool(run: Run, svc: Service) -> TodoWriteTool:
    """The tool of one run: saves into the session's journal, then emits plan_updated."""

    async def save(todos: list[dict[str, str]]) -> None:
        await svc.write(lambda sf: sf.append(TODOS_KIND, {"todos": todos}))
        run.emit(W.PlanUpdatedEvent, todos=todos)

    return TodoWriteTool(save)


async def session_todos(svc: Service) -> list[dict[str, str]]:
    """The current list of a session (gg/session.todos)."""
    await svc.ensure_loaded()
    return await svc.read(lambda sf: current(sf.active_path()))


__all__ = [
    "PLAN_SECTION",
    "TODOS_KIND",
    "TODO_TOOL",
    "TodoWriteTool",
    "current",
    "plan_sections",
    "render",
    "session_todos",
    "todo_tool",
    "validate_todos",
]
