"""What read-only commands print: a credential read must be approved, it goes to the model.

Private files are credentials and keys outside the workspace (shell_paths.private_roots); a
command reads one through an argument, an option value, an input redirect, a glob, a recursive
search of a folder that holds them, or a substitution or variable that names one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ggd.tools.shell.lex import Segment, Word, lex_checked
from ggd.tools.shell.paths import ShellState, covers_private, private_path, private_target
from ggd.tools.shell.scan import DYN
from ggd.tools.shell.verdict import Verdict, normal, secret

if TYPE_CHECKING:
    from ggd.tools.shell.classifier import Analyzer

_RECURSIVE = {"rg", "ag", "ack"}  # search every file under a folder argument
_MAYBE_RECURSIVE = {"grep", "egrep", "fgrep", "zgrep", "diff"}
# Read-only commands whose arguments are not files they print.
_NOT_READERS = {"echo", "printf", "test", "[", "[[", "true", "false", ":", "type", "which"}
_NOT_READERS |= {"whereis", "basename", "dirname", "pwd", "seq", "sleep", "expr", "factor", "cd"}
_NOT_READERS |= {"pushd", "popd", "command -v", "exit", "return", "break", "continue", "shift"}
_NOT_READERS |= {"wait", "jobs", "kill", "cal", "ncal", "yes", "id", "groups", "tput"}
_NOT_READERS |= {"printenv", "set", "shopt", "unset", "declare", "local", "typeset", "hash"}
_NOT_READERS |= {"locale", "getconf", "uname", "pgrep", "ps", "numfmt", "pathchk", "mountpoint"}


def redirect_secret(an: Analyzer, seg: Segment, st: ShellState) -> Verdict | None:
    """An input redirect from a credential (`< ~/.ssh/id_rsa`, `done < ~/.netrc`, `$(< f)`)."""
    for r in seg.redirects:
        if r.op in ("<", "<>") and r.target is not None:
            t = r.target
            wild = t.glob or DYN in t.text  # a default in place of `${x:-...}` is globbed too
            if any(private_path(x, st, wild) for x in t.alternatives()) or any(
                sub_reaches_private(an, sub, st) for sub in t.subs
            ):
                shown = t.text.replace(DYN, "…")
                return secret(normal(f"reads {shown}, a private file outside the workspace"))
    return None


def secret_read(an: Analyzer, name: str, args: list[Word], st: ShellState) -> Verdict | None:
    """A reader pointed at a credential (or a folder holding them, recursively)."""
    if name in _NOT_READERS:
        return None
    found = private_target(args, st)
    recursive = name in _RECURSIVE or (
        name in _MAYBE_RECURSIVE
        and any(
            (a.text[:1] == "-" and a.text[1:2] != "-" and ("r" in a.text or "R" in a.text))
            or a.text in ("--recursive", "--dereference-recursive")
            for a in args
        )
    )
    if found is None and recursive:
        found = next((a.text for a in args if covers_private(a.text, st)), None)
    if found is None:
        found = next(
            (a.text for a in args for sub in a.subs if sub_reaches_private(an, sub, st)),
            None,
        )
    relative = [a for a in args if not a.text.startswith(("-", "/")) and a.text]
    if found is None and st.cwd is None and relative:
        return normal(f"`{name}` reads from a folder only known at run time")
    if found is None:
        return None
    # Reading is harmless to the disk, but the output goes to the model provider.
    shown = found.replace(DYN, "…").strip() or "a computed path"
    return secret(normal(f"reads {shown}, a private file outside the workspace"))


def sub_reaches_private(an: Analyzer, sub: str, st: ShellState) -> bool:
    segs, _ = lex_checked(sub, str(an.home))
    return any(reaches_private(an, w, st) for seg in segs for w in seg.words[1:])


def reaches_private(an: Analyzer, w: Word, st: ShellState) -> bool:
    """True when a word (a path, a glob, a value) may name a private file or folder."""
    return any(
        private_path(alt, st, w.glob or DYN in alt) or covers_private(alt, st)
        for alt in w.alternatives()
    )
