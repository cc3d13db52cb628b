"""Classifier rules for git: read-only subcommands, `git -c` and config keys that run programs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ggd.tools.shell_lex import Word
from ggd.tools.shell_paths import ShellState
from ggd.tools.verdict import Verdict, danger, normal, ro, worst

if TYPE_CHECKING:
    from ggd.tools.classifier import Analyzer

_READ_SUBCOMMANDS = {
    "status", "log", "diff", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
    "rev-list", "ls-files", "ls-tree", "cat-file", "grep", "whatchanged", "merge-base", "name-rev",
    "count-objects", "for-each-ref", "show-ref", "version", "help", "check-ignore", "check-attr",
    "cherry", "range-diff", "diff-tree", "diff-files", "diff-index", "show-branch", "var",
    "verify-commit", "verify-tag", "ls-remote",
}  # fmt: skip
# Config keys whose value git runs as a program (or that pull in other config).
_EXEC_KEY_RE = re.compile(
    r"^(core\.(sshcommand|pager|editor|fsmonitor|hookspath|gitproxy|askpass|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)"
    r"|merge\..+\.driver|(diff|merge)tool\..+\.(cmd|path)|gpg\.(.+\.)?program|pager\..+"
    r"|remote\..+\.(uploadpack|receivepack|proxy)|credential\.(.+\.)?helper|protocol\..*allow"
    r"|uploadpack\.packobjectshook|include\.path|includeif\..+\.path|core\.sshcommand|ssh\.variant)$"
)
_GLOBAL_VALUED = {"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--exec-path"}
_BRANCH_WRITE = {"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-u", "-f"}
_BRANCH_WRITE |= {
    "--set-upstream-to",
    "--unset-upstream",
    "--edit-description",
    "--force",
    "--track",
}
_BRANCH_VALUED = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort"}
_BRANCH_VALUED |= {"--format"}


def config_key_risk(assignment: str) -> Verdict:
    """Risk of setting `key=value` through `git -c` or `git config`."""
    key, _, value = assignment.partition("=")
    key = key.strip().lower()
    if _EXEC_KEY_RE.match(key):
        return danger(f"git config `{key}` makes git run a program")
    if key.startswith("alias.") and value.lstrip().startswith("!"):
        return danger(f"git alias `{key}` runs a shell command")
    return normal(f"git -c sets `{key or '?'}`")


def rule_git(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """git: listing subcommands are read-only; everything else normal; exec configs dangerous."""
    verdicts: list[Verdict] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "-c":
            verdicts.append(config_key_risk(args[i + 1].text if i + 1 < len(args) else ""))
            i += 2
        elif t in _GLOBAL_VALUED:
            i += 2
        elif t.startswith(("--exec-path=", "--config-env")):
            verdicts.append(normal(f"git {t.split('=')[0]} changes what git runs"))
            i += 1 if "=" in t else 2
        elif t.startswith("-"):
            i += 1
        else:
            break
    if i >= len(args):
        return worst([*verdicts, ro("git")])
    sub, rest = args[i].text, args[i + 1 :]
    verdicts.append(_subcommand(an, sub, rest, st))
    return worst(verdicts)


def _subcommand(an: Analyzer, sub: str, rest: list[Word], st: ShellState) -> Verdict:
    texts = [w.text for w in rest]
    flags = [t for t in texts if t.startswith("-")]
    label = f"git {sub}"
    if sub in _READ_SUBCOMMANDS:
        for k, t in enumerate(texts):
            if t == "--output" and k + 1 < len(rest):
                return an.write_target(rest[k + 1], st, f"{label} --output")
            if t.startswith("--output="):
                return an.write_target(Word(t.split("=", 1)[1]), st, f"{label} --output")
            if t in ("--ext-diff", "--open-files-in-pager", "-O"):
                return normal(f"{label} {t} runs another program")
        return ro(label)
    if sub == "branch":
        positional = _positionals(texts, _BRANCH_VALUED)
        if not set(flags) & _BRANCH_WRITE and (not positional or {"--list", "-l"} & set(flags)):
            return ro(label)
    elif sub == "tag":
        if not texts or (
            {"-l", "--list"} & set(flags) and not set(flags) & {"-d", "-a", "-s", "-f"}
        ):
            return ro(label)
    elif sub in ("remote", "stash", "worktree", "notes", "submodule", "reflog"):
        listing = {
            "remote": {"-v", "--verbose", "show", "get-url"},
            "stash": {"list", "show"},
            "worktree": {"list"},
            "notes": {"list", "show"},
            "submodule": {"status", "summary"},
            "reflog": {"show", "exists"},
        }[sub]
        # Bare `git stash` pushes a stash; the others list when given no arguments.
        if (not texts and sub != "stash") or (texts and texts[0] in listing):
            return ro(label)
    elif sub == "config":
        positional = _positionals(texts, {"--file", "-f", "--blob", "--type", "--default"})
        reading = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"}
        if set(flags) & reading or (len(positional) == 1 and not set(flags) & {"--unset"}):
            return ro(label)
        if len(positional) >= 2:
            return worst([config_key_risk(f"{positional[0]}={positional[1]}"), normal(label)])
    return normal(f"`{label}` changes the repository or talks to a remote")


def _positionals(texts: list[str], valued: set[str]) -> list[str]:
    out, skip = [], False
    for t in texts:
        if skip:
            skip = False
        elif t in valued:
            skip = True
        elif not t.startswith("-"):
            out.append(t)
    return out
