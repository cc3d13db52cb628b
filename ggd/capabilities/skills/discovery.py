"""Finding skills: `.agents/skills` in the workspace and each parent folder, then ~/.agents/skills.

Each skill is a folder holding SKILL.md. Roots are searched nearest first and the first skill of a
name wins, so a project can override a personal skill. A malformed SKILL.md is skipped with a
warning that names the file (shown relative to the workspace or as ~/..., never absolute).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .frontmatter import FrontmatterError, parse_bool, split_frontmatter

SKILLS_DIR = Path(".agents") / "skills"
SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256 * 1024
MAX_DESCRIPTION = 1024
NAME_RULE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
NAME_MAX = 64

RootKind = Literal["workspace", "parent", "user"]

log = logging.getLogger("ggd.skills")
# Warnings already logged by this daemon: skills are discovered at every turn and every
# gg/skill.list, and one broken file should be one log line, not one per turn.
_logged: set[str] = set()
_logged_lock = threading.Lock()


class SkillError(ValueError):
    """One SKILL.md cannot be used; the message says why."""


@dataclass(frozen=True)
class SkillRoot:
    """A folder skills are looked for in."""

    kind: RootKind
    path: Path


@dataclass(frozen=True)
class Skill:
    """One loaded skill."""

    name: str
    description: str
    model_invocable: bool
    folder: Path  # resolved
    root: RootKind
    shown: str  # the folder as shown to clients and the model (relative or ~/...)

    def body(self) -> str:
        """SKILL.md without its frontmatter, read now (a forced skill uses the current text)."""
        return split_frontmatter(_read_text(self.folder / SKILL_FILE))[1]


@dataclass
class SkillSet:
    """The skills that apply to a workspace, by precedence, and the warnings found on the way."""

    skills: list[Skill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> Skill | None:
        """A skill by name (case-insensitive)."""
        low = name.lower()
        return next((s for s in self.skills if s.name == low), None)

    @property
    def names(self) -> list[str]:
        """Every skill name, sorted."""
        return sorted(s.name for s in self.skills)


def skill_roots(workspace: Path, home: Path) -> list[SkillRoot]:
    """The roots to search, nearest first, each folder once."""
    ws = workspace.resolve()
    user = (home / SKILLS_DIR).resolve()
    out: list[SkillRoot] = []
    seen: set[Path] = set()
    for folder in [ws, *ws.parents]:
        path = (folder / SKILLS_DIR).resolve()
        kind: RootKind = "user" if path == user else "workspace" if folder == ws else "parent"
        if path not in seen:
            seen.add(path)
            out.append(SkillRoot(kind, path))
    if user not in seen:
        out.append(SkillRoot("user", user))
    return out


def shown_path(path: Path, workspace: Path, home: Path) -> str:
    """path relative to the workspace, else as ~/..., else relative to the workspace with '..'."""
    ws = workspace.resolve()
    if path.is_relative_to(ws):
        return path.relative_to(ws).as_posix() or "."
    home = home.resolve()
    if path.is_relative_to(home):
        return "~/" + path.relative_to(home).as_posix()
    return Path(os.path.relpath(path, ws)).as_posix()


def discover(workspace: Path, home: Path) -> SkillSet:
    """Load every skill under the roots. Blocking: call it from a worker thread."""
    found = SkillSet()
    for root in skill_roots(workspace, home):
        for folder in _skill_folders(root.path):
            shown = shown_path(folder, workspace, home)
            try:
                skill = load_skill(folder.resolve(), root.kind, shown)
            except (SkillError, FrontmatterError) as exc:
                found.warnings.append(f"{shown}/{SKILL_FILE} skipped: {exc}")
                continue
            except OSError as exc:
                found.warnings.append(f"{shown}/{SKILL_FILE} skipped: cannot read ({exc.strerror})")
                continue
            if found.get(skill.name) is None:  # a nearer root already has this name: it wins
                found.skills.append(skill)
    return found


def log_warnings(skills: SkillSet) -> None:
    """Log each warning of a discovery once per daemon."""
    for warning in skills.warnings:
        with _logged_lock:
            if warning in _logged:
                continue
            _logged.add(warning)
        log.warning("skill %s", warning)


def load_skill(folder: Path, root: RootKind, shown: str) -> Skill:
    """Parse folder/SKILL.md; SkillError or FrontmatterError when it is not a usable skill."""
    fields, _body = split_frontmatter(_read_text(folder / SKILL_FILE))
    name = fields.get("name", "").strip()
    description = " ".join(fields.get("description", "").split())
    if not name:
        raise SkillError("the frontmatter has no 'name'")
    if len(name) > NAME_MAX or not NAME_RULE.match(name):
        raise SkillError(
            f"name {name[:NAME_MAX]!r} must be lowercase letters, digits and single dashes"
        )
    if not description:
        raise SkillError("the frontmatter has no 'description'")
    if len(description) > MAX_DESCRIPTION:
        raise SkillError(f"the description is longer than {MAX_DESCRIPTION} characters")
    hidden = parse_bool(fields.get("disable-model-invocation", ""), "disable-model-invocation")
    return Skill(name, description, not hidden, folder, root, shown)


def _skill_folders(root: Path) -> list[Path]:
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []  # no such root: the common case
    out = []
    for entry in entries:
        try:
            if entry.is_dir() and (Path(entry.path) / SKILL_FILE).is_file():
                out.append(Path(entry.path))
        except OSError:
            continue
    return out


def _read_text(path: Path) -> str:
    with open(path, "rb") as fh:
        data = fh.read(MAX_SKILL_BYTES + 1)
    if len(data) > MAX_SKILL_BYTES:
        raise SkillError(f"larger than {MAX_SKILL_BYTES // 1024} KiB")
    if b"\x00" in data:
        raise SkillError("a binary file, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(f"not valid UTF-8 (byte {exc.start})") from None


__all__ = [
    "SKILLS_DIR",
    "SKILL_FILE",
    "RootKind",
    "Skill",
    "SkillError",
    "SkillRoot",
    "SkillSet",
    "discover",
    "load_skill",
    "log_warnings",
    "shown_path",
    "skill_roots",
]
