"""Agent definitions: what a subagent is (name, description, tools, model, turns, prompt).

A definition is a Markdown file with front matter, the format Claude Code and other agents use
for subagents, so an existing file works unchanged:

    ---
    name: code-reviewer
    description: Reviews a change for bugs and style. Use after editing code.
    tools: Read, Grep, Glob        # or a YAML list; omitted: the parent's tools
    model: inherit                 # sonnet/opus/haiku/inherit follow the parent's model
    maxTurns: 20                   # optional
    ---
    You are a careful reviewer ...   (the body: the subagent's instructions)

Files are read from `.agents/agents/*.md` in the workspace, each of its parent folders and the
home folder; the nearest wins for one name, and a file may replace a builtin. Builtins: `general`
(the parent's tools) and `explore` (read-only tools). The front matter is the small YAML subset
these files use (scalars, quoted strings, `[a, b]` and `- item` lists); anything else in a file
makes it skipped with a reason, never a failed run.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("ggd.app")

AGENTS_DIR = Path(".agents") / "agents"
MAX_FILE_BYTES = 64 * 1024
_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")

# Claude Code's tool names -> gg's (a definition written for it keeps its meaning here).
_TOOL_ALIASES = {
    "read": ("read",),
    "notebookread": ("read",),
    "write": ("write",),
    "edit": ("edit",),
    "multiedit": ("edit",),
    "notebookedit": ("edit",),
    "bash": ("bash",),
    "grep": ("grep",),
    "glob": ("list",),
    "ls": ("list",),
    "task": ("task",),
    "agent": ("task",),
    "todowrite": ("todo_write",),
    "websearch": ("browser_search",),
    "webfetch": ("browser_navigate",),
}
READ_ONLY_TOOLS = ("read", "list", "grep")


@dataclass(frozen=True)
class AgentDefinition:
    """One agent a `task` call may start."""

    name: str
    description: str
    # gg tool names the agent may use; None: every tool of its parent (never `task` unless named).
    tools: tuple[str, ...] | None = None
    model: str | None = None  # None or an alias: the parent's model
    max_turns: int | None = None
    prompt: str = ""
    source: str = "builtin"  # the file it came from

    @property
    def may_delegate(self) -> bool:
        """A child may start grandchildren only when its definition names the task tool."""
        return self.tools is not None and "task" in self.tools


BUILTINS = (
    AgentDefinition(
        name="general",
        description="Your tools; for a self-contained multi-step task.",
        prompt="Carry out the task completely, then answer with what you did and found.",
    ),
    AgentDefinition(
        name="explore",
        description="Read-only (read, list, grep): finds files, answers questions about code.",
        tools=READ_ONLY_TOOLS,
        prompt="You only read: search and read files, then answer with precise findings "
        "(paths, line numbers, short quotes). You cannot change anything.",
    ),
)


class DefinitionError(ValueError):
    """A definition file that cannot be used; the message says why."""


def _scalar(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw.split(" #", 1)[0].strip()


def parse_front_matter(text: str) -> tuple[dict[str, str | list[str]], str]:
    """(fields, body) of a Markdown file with `---` front matter (a small YAML subset)."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise DefinitionError("no front matter (the file must start with a --- line)")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise DefinitionError("the front matter has no closing --- line") from None
    fields: dict[str, str | list[str]] = {}
    key: str | None = None
    for line in lines[1:end]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = re.match(r"\s+-\s*(.*)$", line) or re.match(r"-\s+(.*)$", line)
        if key is not None and item:
            value = fields.get(key)
            fields[key] = [*(value if isinstance(value, list) else []), _scalar(item.group(1))]
            continue
        value = fields.get(key) if key is not None else None
        if key is not None and line[:1].isspace() and isinstance(value, str):
            # A scalar continued on indented lines (plain or `>`/`|` block): folded to one line.
            fields[key] = f"{value} {_scalar(line)}".strip()
            continue
        m = re.match(r"([A-Za-z][\w-]*)\s*:\s*(.*)$", line)
        if not m:
            raise DefinitionError(f"front matter line not understood: {line.strip()[:60]!r}")
        key, value = m.group(1), m.group(2).strip()
        if value in (">", "|", ">-", "|-"):
            fields[key] = ""
        elif value.startswith("[") and value.endswith("]"):
            fields[key] = [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
        else:
            fields[key] = _scalar(value)
    return fields, "\n".join(lines[end + 1 :]).strip()


def _tool_names(value: str | list[str]) -> tuple[str, ...]:
    items = value if isinstance(value, list) else value.split(",")
    out: list[str] = []
    for item in items:
        raw = item.strip()
        if not raw:
            continue
        raw = raw.split("(", 1)[0].strip()  # Bash(git diff:*) narrows bash; gg asks instead
        if raw.startswith("mcp__"):  # mcp__server__tool -> mcp_server_tool
            names: tuple[str, ...] = ("mcp_" + raw[5:].replace("__", "_"),)
        else:
            names = _TOOL_ALIASES.get(raw.lower(), (raw,))
        out.extend(n for n in names if n not in out)
    return tuple(out)


def definition_from_text(text: str, source: str) -> AgentDefinition:
    """A definition from a file's text; DefinitionError names what is wrong."""
    fields, body = parse_front_matter(text)
    name = fields.get("name")
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise DefinitionError("name: required, lowercase letters, digits, - and _ (max 64)")
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        raise DefinitionError("description: required (when the parent should use this agent)")
    tools = fields.get("tools")
    model = fields.get("model")
    turns = fields.get("maxTurns", fields.get("max_turns"))
    max_turns: int | None = None
    if turns is not None:
        if not isinstance(turns, str) or not turns.isdigit() or not 1 <= int(turns) <= 100_000:
            raise DefinitionError("maxTurns: a whole number from 1 to 100000")
        max_turns = int(turns)
    return AgentDefinition(
        name=name,
        description=" ".join(description.split())[:1000],
        tools=_tool_names(tools) if tools is not None else None,
        model=model if isinstance(model, str) and model else None,
        max_turns=max_turns,
        prompt=body,
        source=source,
    )


def search_dirs(workspace: Path, home: Path | None = None) -> list[Path]:
    """`.agents/agents` folders, nearest first: the workspace, its parents, then the home folder."""
    out: list[Path] = []
    for folder in (workspace, *workspace.parents):
        out.append(folder / AGENTS_DIR)
    user = (home or Path.home()) / AGENTS_DIR
    if user not in out:
        out.append(user)
    return out


@dataclass
class Catalog:
    """The agents of one workspace, and the files that could not be used (with reasons)."""

    agents: dict[str, AgentDefinition]
    problems: dict[str, str]

    def get(self, name: str) -> AgentDefinition | None:
        """An agent by name."""
        return self.agents.get(name)

    def names(self) -> list[str]:
        """Every agent name, sorted (a stable order for the system prompt)."""
        return sorted(self.agents)


def load_catalog(workspace: Path, home: Path | None = None) -> Catalog:
    """The builtins and every definition file that applies to a workspace (blocking I/O)."""
    agents = {d.name: d for d in BUILTINS}
    problems: dict[str, str] = {}
    # Farthest first, so a nearer file replaces a farther one (and a builtin) of the same name.
    for folder in reversed(search_dirs(workspace, home)):
        try:
            files = sorted(folder.glob("*.md")) if folder.is_dir() else []
        except OSError:
            continue
        for path in files:
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    raise DefinitionError(f"larger than {MAX_FILE_BYTES} bytes")
                text = path.read_text(encoding="utf-8", errors="replace")
                definition = definition_from_text(text, str(path))
            except (OSError, DefinitionError) as exc:
                problems[str(path)] = str(exc)
                log.info("agent definition skipped", extra={"path": str(path), "why": str(exc)})
                continue
            agents[definition.name] = definition
    return Catalog(agents, problems)


def listing(catalog: Catalog) -> str:
    """The system prompt's list of agents: one `- name: description` line each, sorted."""
    return "\n".join(f"- {n}: {catalog.agents[n].description}" for n in catalog.names())


__all__ = [
    "AGENTS_DIR",
    "BUILTINS",
    "READ_ONLY_TOOLS",
    "AgentDefinition",
    "Catalog",
    "DefinitionError",
    "definition_from_text",
    "listing",
    "load_catalog",
    "parse_front_matter",
    "search_dirs",
]
