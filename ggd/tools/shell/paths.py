"""Where a shell path points for the classifier: symlinks (real and created earlier) resolved."""

from __future__ import annotations

import fnmatch
import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ggd.tools.shell.lex import Word
from ggd.tools.shell.scan import DYN

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
    gg_home: Path | None = None
    # Command names redefined earlier in the command (`hash -p /bin/rm ls`): name -> program.
    renamed: dict[str, str] = field(default_factory=dict)
    # Symlinks already looked up on disk during this classification (shared by copies).
    seen: dict[Path, str | None] = field(default_factory=dict)
    # Variables that may hold a secret because a secret was copied into them (`x=$KEY`, `read x
    # <<< "$KEY"`, `for x in $KEY`). Shared by copies: over-reading is the safe side.
    tainted: set[str] = field(default_factory=set)
    # Every copy seen, secret or not (`x=$y`: x <- {y}), to settle the taint after a pass.
    copies: dict[str, set[str]] = field(default_factory=dict)

    def copy(self) -> ShellState:
        """A copy for a subshell: its cd and ln do not leak back."""
        return ShellState(
            self.workspace,
            self.home,
            self.cwd,
            dict(self.links),
            self.gg_home,
            self.renamed,
            self.seen,
            self.tainted,
            self.copies,
        )


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
    if len(text) >= 4096:
        return None  # longer than PATH_MAX: the kernel refuses it, and walking it is slow
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
            target = _readlink(nxt, st.seen)
        if target is not None and hops < 40:
            hops += 1
            if target.startswith("/"):
                cur = Path("/")
            pending.extendleft(reversed(target.split("/")))
            continue
        cur = nxt
    return cur


def _readlink(p: Path, seen: dict[Path, str | None]) -> str | None:
    """The target of a real symlink (None if p is not one), remembered for one classification."""
    if p not in seen:
        try:
            seen[p] = os.readlink(p) if os.path.islink(p) else None
        except OSError:
            seen[p] = None
    return seen[p]


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
    ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials",
    ".pgpass", ".npmrc", ".pypirc", ".password-store", ".gg", ".config/gh", ".config/gcloud",
    ".config/git/credentials", ".config/hub", ".config/op", ".config/rclone", ".config/doctl",
    ".config/containers/auth.json", ".config/github-copilot", ".config/google-chrome",
    ".config/chromium", ".mozilla", ".thunderbird", ".local/share/keyrings", ".cargo/credentials",
    ".cargo/credentials.toml", ".terraform.d", ".vault-token", ".oci", ".s3cfg", ".boto",
    ".m2/settings.xml", ".gradle/gradle.properties", ".composer/auth.json", ".gem/credentials",
    ".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
    ".node_repl_history", ".lesshst", ".env", ".ngrok2", ".config/ngrok", ".authinfo",
    ".authinfo.gpg", ".config/rclone", ".wrangler", ".fly", ".config/configstore",
)  # fmt: skip
PRIVATE_SYSTEM = (
    Path("/etc/shadow"), Path("/etc/gshadow"), Path("/etc/sudoers"), Path("/etc/sudoers.d"),
    Path("/etc/ssh"), Path("/root"), Path("/etc/ssl/private"), Path("/etc/krb5.keytab"),
    Path("/etc/shadow-"), Path("/etc/gshadow-"),
)  # fmt: skip
PRIVATE_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".kdbx")
_PROC_ESCAPE_RE = re.compile(r"/(?:environ|mem|cwd|root|fd|map_files|task)(?:/|$)")
_PROC_SECRET_RE = re.compile(r"^/proc/[^/]+(?:/task/[^/]+)?/(?:environ|mem|auxv)$")
# The same places as component patterns, for globs and unknown parts (`/pro?/self/envir*`,
# `$d/environ`): _ANY is one path component, _REST any number of them.
_ANY, _REST = "\x01", "\x02"
_PROC_ENV = [["proc", _ANY, leaf] for leaf in ("environ", "mem", "auxv")] + [
    ["proc", _ANY, "task", _ANY, leaf] for leaf in ("environ", "mem", "auxv")
]
# Another process's view of the filesystem (`/proc/1/root/...`): only when /proc is in sight.
_PROC_VIEW = [["proc", _ANY, leaf, _REST] for leaf in ("root", "cwd", "fd", "map_files")]
_PROC_VIEW += [["proc", _ANY, "task", _ANY, leaf, _REST] for leaf in ("root", "cwd", "fd")]


def private_roots(st: ShellState) -> list[Path]:
    """Every folder or file whose contents are private."""
    # /root is private unless it is our own home (then its listed credentials are).
    system = [q for q in PRIVATE_SYSTEM if not st.home.is_relative_to(q)]
    roots = [st.home / name for name in PRIVATE_IN_HOME] + system
    if st.gg_home is not None:
        roots.append(st.gg_home)
    return roots


def _key_name(name: str) -> bool:
    return name.startswith("id_") or name.endswith(PRIVATE_SUFFIXES) or name.endswith("_key")


def _multi(comp: str) -> bool:
    """A component that may stand for any number of them: an unknown part, `**`, or `..`."""
    return DYN in comp or comp in ("**", "..")


def _meet(globs: list[str], pats: list[str]) -> bool:
    """True when some path matches both the glob components and the pattern components.

    A table over (glob index, pattern index), filled from the ends: no recursion, and no
    blow-up on words with many unknown parts (`$a/$b/$c/.../environ`).
    """
    n, m = len(globs), len(pats)
    # ok[j]: globs[i:] can match pats[j:], for the row i being filled; row n first.
    ok = [j == m or pats[j] == _REST for j in range(m + 1)]
    for i in range(n - 1, -1, -1):
        g = globs[i]
        row = [False] * (m + 1)
        for j in range(m, -1, -1):
            if j < m and pats[j] == _REST:
                row[j] = True
            elif g in ("", "."):
                row[j] = ok[j]
            elif _multi(g):
                row[j] = any(ok[j:])
            elif j < m:
                row[j] = (pats[j] == _ANY or fnmatch.fnmatchcase(pats[j], g)) and ok[j + 1]
        ok = row
    return ok[0]


def _components(text: str, st: ShellState) -> list[str] | None:
    """The absolute components a path word may name: its fixed folder resolved, the rest raw.

    A word that starts with an unknown part keeps it as its first (multi) component. None when
    the word is wholly unknown (`$f`) or its folder cannot be known (cwd unknown).
    """
    if text.startswith(DYN):
        comps = text.split("/")
        return None if all(c == DYN or c in ("", ".") for c in comps) else comps
    cuts = [text.find(c) for c in (DYN, "*", "?", "[") if c in text]
    cut = min(cuts) if cuts else len(text)
    slash = text.rfind("/", 0, cut)
    d = realpath(text[: slash + 1] or ".", st)
    if d is None:
        return None
    return [*d.parts[1:], *text[slash + 1 :].split("/")]


def proc_secret(text: str, st: ShellState) -> bool:
    """True when a glob or partly unknown path could name a process's environment or memory.

    `/pro?/self/envir*`, `/*/1/environ`, `$d/environ`, `cd /proc; cat */environ`.
    """
    comps = _components(text, st)
    if comps is None:
        return False
    pats = _PROC_ENV if comps[0].startswith(DYN) else _PROC_ENV + _PROC_VIEW
    return any(_meet(comps, p) for p in pats)


def proc_covers(text: str, st: ShellState) -> bool:
    """True when text may be a folder that holds a process environment (`grep -r x /proc/1`)."""
    comps = _components(text, st)
    if comps is None or comps[0].startswith(DYN):
        return False  # `$dir/build` could be anything: only a named environ file counts there
    return any(_meet([*comps, DYN], p) for p in _PROC_ENV)


def private_path(text: str, st: ShellState, pattern: bool) -> bool:
    """True when reading text (a path, maybe a glob or with unknown parts) may read a secret."""
    if text.startswith("/proc/") and (pattern or _PROC_ESCAPE_RE.search(text)):
        return True  # another process's environment, or its view of the filesystem
    if pattern and proc_secret(text, st):
        return True
    cuts = [text.find(c) for c in (DYN, "*", "?", "[") if c in text] if pattern else []
    if not cuts:
        p = realpath(text, st)
        if p is None:
            return False
        if _PROC_SECRET_RE.match(str(p)):
            return True
        inside = p.is_relative_to(st.workspace)
        if not inside and any(p == q or p.is_relative_to(q) for q in private_roots(st)):
            return True
        return not inside and _key_name(p.name)
    prefix = text[: min(cuts)]
    slash = prefix.rfind("/")
    d = realpath(prefix[: slash + 1] or ".", st)
    if d is None or d.is_relative_to(st.workspace):
        return False
    rest = text[slash + 1 :].replace(DYN, "*").split("/")
    if any(d.is_relative_to(q) for q in private_roots(st)):
        return True
    for q in private_roots(st):
        if q.is_relative_to(d) and q != d:
            first = q.relative_to(d).parts[0]
            if fnmatch.fnmatchcase(first, rest[0]):
                return True
    last = rest[-1]
    return any(fnmatch.fnmatchcase(k, last) for k in ("id_rsa", "x.pem", "x.key", "x_key"))


def covers_private(text: str, st: ShellState) -> bool:
    """True when text is a folder (outside the workspace) that holds private files."""
    if proc_covers(text, st):
        return True
    p = realpath(text.split(DYN, 1)[0] or ".", st) if DYN not in text[:1] else None
    if p is None or p.is_relative_to(st.workspace):
        return False
    return any(q.is_relative_to(p) for q in private_roots(st))


def private_target(args: list[Word], st: ShellState) -> str | None:
    """The first argument naming a credential or key outside the workspace, as shown to people."""
    for word in args:
        for text in word.alternatives():
            found = _private_option(text, word, st)
            if found is not None:
                return found
    return None


def _private_option(text: str, word: Word, st: ShellState) -> str | None:
    """text (one reading of word) when it, or the file an option in it names, is private."""
    if text:
        candidates = [text]
        if text.startswith("--") and "=" in text:
            candidates = [text.split("=", 1)[1]]
        elif text.startswith("-"):
            candidates = [text[2:]] if len(text) > 2 and "/" in text else []
        if "@" in text:
            candidates.append(text.split("@", 1)[1])  # curl -d @FILE, -F name=@FILE
        for cand in candidates:
            if cand and private_path(cand, st, word.glob or DYN in word.text or DYN in cand):
                return text
    return None
