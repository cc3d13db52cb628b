"""Verdicts of the command classifier and the small helpers its rules share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ggd.tools.base import Risk
from ggd.tools.shell.lex import Word

_RANK: dict[Risk, int] = {"read_only": 0, "normal": 1, "dangerous": 2}
_DOWNLOAD_RE = re.compile(r"(?:^|[^\w.-])(?:curl|wget|fetch|aria2c|lwp-download)(?:\s|$|['\"])")


@dataclass
class Verdict:
    """An internal verdict; read-only ones remember the command names for the summary reason."""

    risk: Risk
    reason: str
    names: list[str] = field(default_factory=list)
    secret: bool = False  # it reads a credential: sending its output anywhere is dangerous


def ro(name: str) -> Verdict:
    """A read-only verdict for command `name`."""
    return Verdict("read_only", f"read-only command `{name}`", [name])


def normal(reason: str) -> Verdict:
    """A normal-risk verdict."""
    return Verdict("normal", reason)


def danger(reason: str) -> Verdict:
    """A dangerous verdict."""
    return Verdict("dangerous", reason)


def secret(v: Verdict) -> Verdict:
    """v, marked as printing a credential (piping it to the network is dangerous)."""
    v.secret = True
    return v


def worst(verdicts: list[Verdict]) -> Verdict:
    """The highest-risk verdict (the first one on ties); read-only names are merged."""
    if not verdicts:
        return Verdict("read_only", "nothing to run", [])
    top = max(verdicts, key=lambda v: _RANK[v.risk])
    if top.risk != "read_only":
        if not top.secret and any(v.secret for v in verdicts):
            return Verdict(top.risk, top.reason, top.names, secret=True)
        return top
    names: list[str] = []
    for v in verdicts:
        names += [n for n in v.names if n not in names]
    label = ", ".join(f"`{n}`" for n in names[:6])
    return Verdict("read_only", f"read-only command{'s' if len(names) > 1 else ''} {label}", names)


def has_download(subs: list[str]) -> bool:
    """True when any substitution text runs a downloader."""
    return any(_DOWNLOAD_RE.search(sub) for sub in subs)


def word_subs(words: list[Word]) -> list[str]:
    """All substitution texts inside these words."""
    return [sub for w in words for sub in w.subs]


def basename(text: str) -> str:
    """The command name without its directory (`/bin/rm` -> `rm`)."""
    return text.rsplit("/", 1)[-1] if "/" in text.rstrip("/") else text
