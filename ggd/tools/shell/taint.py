"""Secrets copied into variables, and the commands that print them.

A value copied from a secret-looking variable (`$API_KEY`, `${!name}`) is itself secret: plain and
array assignments (`x=$KEY`, `a=($KEY)`, `a[0]=$KEY`), `declare`/`export`/`local x=$KEY`,
`${x:=$KEY}`, `printf -v x ... "$KEY"`, `for x in "$KEY"`, and `read`/`mapfile` fed a here-string
or here-document that expands one. The classifier records those names in ShellState.tainted and
reads the command again until the set stops growing, so order and loops cannot hide a copy
(`for i in 1 2; do echo $x; x=$KEY; done`).

Any expansion of a secret or tainted variable in a command whose output may reach the model keeps
the command out of the read-only class: its words, its here-strings and here-documents, the file
names of its redirects, the stdin of a loop (`done <<< "$KEY"`), a `case` or `[[` test (an oracle
answers one question per run). Only commands that merely copy a value print nothing: assignments,
`for`/`select` headers, `read`/`mapfile`/`readarray` and `declare NAME=value`; their targets are
tainted instead, unless `set -x` may be on (the trace shows every expansion).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ggd.tools.shell.env import is_secret_var
from ggd.tools.shell.lex import Segment, Word
from ggd.tools.shell.paths import ShellState
from ggd.tools.shell.scan import DYN, scan_vars
from ggd.tools.shell.verdict import basename

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ggd.tools.shell.classifier import Analyzer

READERS = {"read", "mapfile", "readarray"}
DECLARERS = {"declare", "typeset", "local", "export", "readonly"}
_LOOPS = {"for", "select"}
_SKIP = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "esac"}
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STDIN_OPS = ("<<<", "<<", "<<-", "<", "<>")
# Put in ShellState.tainted (no variable has this name) once `set -x` may be on: the shell then
# prints every command it runs, copies included (`set -x; x=$KEY` shows the value).
XTRACE = "-x"


def is_secret(name: str, st: ShellState) -> bool:
    """True when `$name` may hold a secret: a secret-looking name, or a copy of one."""
    return is_secret_var(name) or name.split("[", 1)[0] in st.tainted


def first_secret(names: Iterable[str], st: ShellState) -> str | None:
    """The first name that may hold a secret."""
    return next((n for n in names if is_secret(n, st)), None)


def _target(text: str) -> str:
    """The variable a `NAME=`, `NAME[i]=` or `NAME+=` word assigns."""
    return text.partition("=")[0].split("[", 1)[0].rstrip("+")


def _stdin_vars(seg: Segment) -> list[str]:
    """Variables expanded into this command's stdin: here-strings, here-documents, `< "$F"`."""
    out: list[str] = []
    for r in seg.redirects:
        if r.op in ("<<", "<<-"):
            out += scan_vars(r.body or "") if r.body_expands else []
        elif r.op in _STDIN_OPS and r.target is not None:
            out += r.target.vars
    return out


def _lead(words: list[Word]) -> int:
    """Index of the first word after leading assignments and keywords."""
    i = 0
    while i < len(words) and (words[i].assign or (not words[i].quoted and words[i].text in _SKIP)):
        i += 1
    return i


def record(an: Analyzer, seg: Segment, words: list[Word], st: ShellState) -> None:
    """Note the copies this segment makes; taint targets of a secret (or of a copy of one)."""

    def copy(target: str, sources: Iterable[str]) -> None:
        if _NAME_RE.fullmatch(target):
            known = st.copies.setdefault(target, set())
            known.update(sources)
            if first_secret(known, st):
                st.tainted.add(target)

    for w in [*words, *(r.target for r in seg.redirects if r.target is not None)]:
        for name, used in w.param_assigns:  # `${x:=$KEY}`
            copy(name, used)
    i = _lead(words)
    for w in words[:i]:
        if w.assign:
            copy(_target(w.text), w.vars)
    rest = words[i:]
    if not rest:
        return
    if rest[0].text in _LOOPS and not rest[0].quoted and len(rest) > 1:
        copy(rest[1].text, (v for w in rest[2:] for v in w.vars))
        return
    eff = an.effective(rest)
    name = basename(eff[0].text) if eff else ""
    args = eff[1:]
    if name in DECLARERS:
        for a in args:
            if "=" in a.text:
                copy(_target(a.text), a.vars)
    elif name == "printf" and args and args[0].text.startswith("-v"):
        target = args[0].text[2:] or (args[1].text if len(args) > 1 else "")
        copy(target, (v for a in args for v in a.vars))
    elif name == "set" and _traces(args):
        st.tainted.add(XTRACE)
    elif name in READERS:
        given = _stdin_vars(seg)
        for a in args:
            copy(a.text, given)  # every name read sets (and `-a NAME`); options are no names
        copy("REPLY" if name == "read" else "MAPFILE", given)


def _traces(args: list[Word]) -> bool:
    """True when `set args` may turn xtrace on (`set -x`, `set -euxo pipefail`, `set -o xtrace`)."""
    texts = [a.text for a in args]
    for k, t in enumerate(texts):
        if DYN in t and t[:1] != "+":
            return True  # `set -$flags`
        if t == "-o" and texts[k + 1 : k + 2] == ["xtrace"]:
            return True
        if t.startswith("-") and not t.startswith("--") and "x" in t[1:]:
            return True
    return False


def settle(st: ShellState) -> set[str]:
    """Every variable a secret reaches through the copies seen (a breadth-first walk)."""
    readers: dict[str, list[str]] = {}
    for target, sources in st.copies.items():
        for source in sources:
            readers.setdefault(source, []).append(target)
    todo = [s for s in readers if is_secret(s, st)]
    reached = set(st.tainted)
    while todo:
        for target in readers.get(todo.pop(), []):
            if target not in reached:
                reached.add(target)
                todo.append(target)
    return reached


def printed(an: Analyzer, seg: Segment, words: list[Word], st: ShellState) -> str | None:
    """The first secret or tainted variable this segment may print, or None."""
    names = [v for r in seg.redirects if r.op not in _STDIN_OPS and r.target for v in r.target.vars]
    if XTRACE in st.tainted:  # every expansion is traced, copies too
        every = [*words, *(r.target for r in seg.redirects if r.target is not None)]
        return first_secret([*(v for w in every for v in w.vars), *_stdin_vars(seg)], st)
    rest = words[_lead(words) :]
    copies = False  # the command only copies its input into variables
    if rest and rest[0].text in _LOOPS and not rest[0].quoted:
        copies = True  # `for x in "$KEY"`: x is tainted, the body decides
    elif rest:
        eff = an.effective(rest)
        name = basename(eff[0].text) if eff else ""
        if name in READERS:
            copies = True
            names += [v for w in rest for v in w.vars]
        elif name in DECLARERS:
            names += [v for w in rest if not w.assign and "=" not in w.text for v in w.vars]
        else:
            names += [v for w in rest for v in w.vars]
    if not copies:
        names += _stdin_vars(seg)
    return first_secret(names, st)
