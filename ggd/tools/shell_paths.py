"""Where a shell path points for the classifier: symlinks (real and created earlier) resolved."""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ggd.tools.shell_lex import Word
from ggd.tools.shell_scan import DYN

Kind = Literal["root", "home", "workspace", "inside", "outside", "device", "sink", "unknown"]

# Writing to these is not writing a file.
SINKS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full", "-")


@dataclass
class ShellState:
    """What the classifier knows while walking a command: cwd and links the command creates."""

    workspace: Path
    home: Path
    cwd: Path | None
    links: dict[Path, str] = field(default_factory=dict)

    def copy(self) -> ShellState:
        """A copy for a subshell: its cd and ln do not leak back."""
        return ShellState(self.workspace, self.home, self.cwd, dict(self.links))


@dataclass(frozen=True)
class Location:
    """A classified path: its kind and, when known, the resolved path."""

    kind: Kind
    path: Path | None = None
    whole: bool = False  # a wildcard covers everything directly inside `path`

    def label(self) -> str:
        """A short human name for reasons."""
        if self.kind == "root":
            return "the filesystem root"
        if self.kind == "home":
            return "the home directory"
        if self.kind == "workspace":
            return "the whole workspace"
        if self.kind == "unknown":
            return "a path computed at run time"
        return str(self.path) if self.path is not None else "a path"


def realpath(text: str, st: ShellState) -> Path | None:
    """Resolve text against the shell's cwd, following real symlinks and ones made by the command."""
    if not text.startswith("/"):
        if st.cwd is None:
            return None
        text = f"{st.cwd}/{text}"
    pending = deque(text.split("/"))
    cur = Path("/")
    hops = 0
    while pending:
        comp = pending.popleft()
        if comp in ("", "."):
            continue
        if comp == "..":
            cur = cur.parent
            continue
        nxt = cur / comp
        target = st.links.get(nxt)
        if target is None:
            try:
                target = os.readlink(nxt) if os.path.islink(nxt) else None
            except OSError:
                target = None
        if target is not None and hops < 40:
            hops += 1
            if target.startswith("/"):
                cur = Path("/")
            pending.extendleft(reversed(target.split("/")))
            continue
        cur = nxt
    return cur


def kind_of(p: Path, st: ShellState) -> Kind:
    """Classify a resolved absolute path."""
    ws = st.workspace
    if p == Path("/"):
        return "root"
    if p == st.home:
        return "home"
    if p == ws:
        return "workspace"
    if p.is_relative_to(ws):
        return "inside"
    if p.is_relative_to("/dev"):
        return "device"
    return "outside"


def locate(text: str, glob: bool, st: ShellState, write: bool = False) -> Location:
    """Where a path word points; wildcards and unknown expansions are judged by their fixed prefix."""
    if write and (text in SINKS or text.startswith("/dev/fd/")):
        return Location("sink")
    cuts = [text.find(DYN)] if DYN in text else []
    if glob:
        cuts += [text.find(ch) for ch in "*?[" if ch in text]
    if not cuts:
        p = realpath(text, st)
        return Location("unknown") if p is None else Location(kind_of(p, st), p)
    cut = min(cuts)
    prefix = text[:cut]
    slash = prefix.rfind("/")
    dirpart, partial = (prefix[: slash + 1], prefix[slash + 1 :]) if slash >= 0 else ("", prefix)
    if not dirpart and not partial and text[cut] == DYN:
        return Location("unknown")
    d = realpath(dirpart or ".", st)
    if d is None:
        return Location("unknown")
    kind = kind_of(d, st)
    if not partial:
        return Location(kind, d, whole=True)
    # Only some entries of d: never the whole of d itself.
    if kind in ("workspace", "inside"):
        return Location("inside", d)
    return Location("device" if kind == "device" else "outside", d)


# Credentials and keys that a read-only command should not send to the model without asking.
PRIVATE_IN_HOME = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".password-store",
    ".gg",
    ".config/gh",
    ".config/gcloud",
)
PRIVATE_SYSTEM = (Path("/etc/shadow"), Path("/etc/gshadow"), Path("/etc/sudoers"))
PRIVATE_SUFFIXES = (".pem", ".key", ".p12", ".pfx")


def private_target(args: list[Word], st: ShellState) -> str | None:
    """The first argument naming a credential or key outside the workspace, as shown to people."""
    for word in args:
        text = word.text
        if text.startswith("-") or not text:
            continue
        loc = locate(text, word.glob, st)
        if loc.kind not in ("outside", "home") or loc.path is None:
            continue
        p = loc.path
        under_home = [st.home / name for name in PRIVATE_IN_HOME]
        if any(p == q or p.is_relative_to(q) for q in under_home):
            return text
        if any(p == q or p.is_relative_to(q) for q in PRIVATE_SYSTEM):
            return text
        if p.name.startswith("id_") or p.suffix in PRIVATE_SUFFIXES:
            return text
    return None
