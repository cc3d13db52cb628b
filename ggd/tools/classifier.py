"""The bash command classifier: read_only, normal or dangerous, with a human reason.

The command is lexed into simple commands (split on `&&`, `||`, `|`, `;`, `&`, newlines), every
substitution and re-entered string (`bash -c`, `eval`, `find -exec`, `xargs`) is classified too,
and the result is the worst part. Unknown commands are `normal`; only an allow-list is `read_only`.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ggd.tools import shell_rules
from ggd.tools.base import Risk
from ggd.tools.shell_lex import Redirect, Segment, Word, lex
from ggd.tools.shell_paths import Location, ShellState, locate, private_target
from ggd.tools.shell_scan import DYN
from ggd.tools.verdict import (
    Verdict,
    basename,
    danger,
    has_download,
    normal,
    ro,
    word_subs,
    worst,
)

_MAX_DEPTH = 24
_MAX_LEN = 100_000

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "rbash"}
INTERPRETERS = {"perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "tclsh", "osascript"}
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "lwp-download"}
_PY_RE = re.compile(r"^(?:python|pypy)[0-9.]*$")
_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_FORK_RE = re.compile(r"(?:function\s+)?([\w:.]+)\s*\(\s*\)\s*\{(.*?)\}", re.S)
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!"}
_KEYWORDS |= {"time", "esac"}
_HEADERS = {"for", "select", "case", "function"}
_ELEVATE = {"sudo", "doas", "pkexec", "su", "run0", "sudoedit", "gosu", "su-exec"}
# name -> (options that take a value, positional words to skip before the wrapped command)
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "nohup": (frozenset(), 0),
    "setsid": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u"}), 0),
    "timeout": (frozenset({"-s", "-k", "--signal", "--kill-after"}), 1),
    "taskset": (frozenset(), 1),
    "unbuffer": (frozenset(), 0),
    "busybox": (frozenset(), 0),
    "chronic": (frozenset(), 0),
    "flock": (frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}), 1),
    "xargs": (
        frozenset({"-n", "-I", "-P", "-d", "-L", "-a", "-E", "-s", "--max-args", "--replace"})
        | frozenset({"--max-procs", "--delimiter", "--arg-file", "--max-lines", "--eof"}),
        0,
    ),
}


@dataclass(frozen=True)
class Classification:
    """The classifier's verdict: a risk level and a human reason."""

    risk: Risk
    reason: str


class Analyzer:
    """Walks lexed commands; rules in shell_rules call back into it for nested commands."""

    def __init__(self, workspace: Path, home: Path) -> None:
        self.workspace = workspace
        self.home = home

    def analyze(self, text: str, st: ShellState, depth: int) -> Verdict:
        """Classify a whole command string."""
        if depth > _MAX_DEPTH:
            return danger("command nesting too deep to analyse")
        verdicts: list[Verdict] = []
        for m in _FORK_RE.finditer(text):
            name = re.escape(m.group(1))
            if re.search(name + r"\s*\|\s*&?\s*" + name, m.group(2)):
                verdicts.append(danger("fork bomb"))
        segs = lex(text, str(self.home))
        feeding: str | None = None  # what the pipeline so far produces, if it is untrusted code
        for seg in segs:
            verdicts.append(self.segment(seg, st, depth))
            eff = self.effective(seg.words)
            name = basename(eff[0].text) if eff else ""
            if feeding and eff and self.reads_program_from_stdin(name, eff[1:]):
                verdicts.append(danger(f"{feeding} piped into a shell"))
            if seg.op not in ("|", "|&"):
                feeding = None
            elif name in DOWNLOADERS:
                feeding = "download"
            elif name in ("base64", "xxd", "openssl", "gunzip", "zcat") and feeding is None:
                decode = {"-d", "--decode", "-D", "-r", "enc", "base64"}
                if name in ("gunzip", "zcat") or any(w.text in decode for w in eff[1:]):
                    feeding = "decoded text"
        return worst(verdicts)

    def segment(self, seg: Segment, st: ShellState, depth: int) -> Verdict:
        """Classify one simple command with its substitutions and redirects."""
        verdicts = [self.analyze(sub, st.copy(), depth + 1) for sub in seg.subs]
        for body in seg.arith:
            # Normally arithmetic; only a body that reads as a dangerous command counts.
            v = self.analyze(body, st.copy(), depth + 1)
            if v.risk == "dangerous":
                verdicts.append(v)
        verdicts += [self.redirect(r, st) for r in seg.redirects]
        words = seg.words
        i = 0
        while i < len(words):
            t = words[i].text
            if words[i].quoted:
                break
            if t in _HEADERS:
                return worst(verdicts)
            if t == "[[":
                return worst([*verdicts, ro("[[")])  # a test; its substitutions are counted above
            if t in _KEYWORDS or _ASSIGN_RE.match(t):
                i += 1
                continue
            break
        if i < len(words):
            verdicts.append(self.command(words[i:], st, depth))
            if any(DYN in w.text for w in words[i:]):
                verdicts.append(self._split_variant(words[i:], st, depth))
        return worst(verdicts)

    def _split_variant(self, words: list[Word], st: ShellState, depth: int) -> Verdict:
        """Re-read with each unknown expansion as a word break (`rm${IFS}-rf${IFS}/`).

        Only a dangerous result counts: this guards against evasion, not ordinary variables.
        """
        pieces = [shlex.quote(p) for w in words for p in w.text.split(DYN) if p]
        v = self.analyze(" ".join(pieces), st.copy(), depth + 1)
        return v if v.risk == "dangerous" else worst([])

    def redirect(self, r: Redirect, st: ShellState) -> Verdict:
        """An output redirect writes its target; fd duplication and input do not."""
        t = r.target
        if t is None or r.op in ("<", "<<", "<<-", "<<<", "<&"):
            return worst([])
        if r.op == ">&" and re.fullmatch(r"\d*-?", t.text):
            return worst([])
        return self.write_target(t, st, "redirect")

    def write_target(self, w: Word, st: ShellState, what: str) -> Verdict:
        """Risk of writing to the path in word w."""
        verdicts = []
        for alt in w.alternatives():
            loc = locate(alt, w.glob, st, write=True)
            verdicts.append(self._write_loc(loc, what))
        return worst(verdicts)

    def _write_loc(self, loc: Location, what: str) -> Verdict:
        if loc.kind == "sink":
            return worst([])
        if loc.kind == "device":
            return danger(f"{what} writes to a device ({loc.label()})")
        if loc.kind in ("root", "home", "outside"):
            return danger(f"{what} writes outside the workspace ({loc.label()})")
        if loc.kind == "unknown":
            return normal(f"{what} writes to {loc.label()}")
        return normal(f"{what} writes a file in the workspace")

    def remove_target(self, w: Word, st: ShellState, what: str, recursive: bool) -> Verdict:
        """Risk of deleting (or recursively changing) the path in word w."""
        verdicts = []
        for alt in w.alternatives():
            loc = locate(alt, w.glob, st)
            if loc.kind in ("root", "home", "outside", "device"):
                verdicts.append(danger(f"{what} of {loc.label()}"))
            elif recursive and loc.kind in ("workspace", "unknown"):
                verdicts.append(danger(f"{what} of {loc.label()}"))
            else:
                verdicts.append(normal(f"{what} inside the workspace"))
        return worst(verdicts)

    def effective(self, words: list[Word]) -> list[Word]:
        """Words after keywords, assignments and wrapper commands (env, nice, timeout, ...)."""
        i = 0
        while i < len(words) and not words[i].quoted:
            t = words[i].text
            if t in _KEYWORDS or _ASSIGN_RE.match(t):
                i += 1
            else:
                break
        words = words[i:]
        while words:
            name = basename(words[0].text)
            if name == "env":
                words = self._skip_env(words[1:])[0]
            elif name in _WRAPPERS and name != "xargs":
                words = self._skip_wrapper(name, words[1:])
            elif name == "command" and not (len(words) > 1 and words[1].text in ("-v", "-V")):
                words = words[2:] if len(words) > 1 and words[1].text == "-p" else words[1:]
            else:
                return words
        return words

    def _skip_wrapper(self, name: str, args: list[Word]) -> list[Word]:
        valued, positional = _WRAPPERS[name]
        i = 0
        while i < len(args) and args[i].text.startswith("-") and args[i].text != "-":
            if args[i].text == "--":
                i += 1
                break
            i += 2 if args[i].text in valued else 1
        return args[i + positional :]

    def _skip_env(self, args: list[Word]) -> tuple[list[Word], str | None]:
        i, split = 0, None
        while i < len(args):
            t = args[i].text
            if t in ("-u", "--unset", "-C", "--chdir"):
                i += 2
            elif t in ("-S", "--split-string") and i + 1 < len(args):
                split = args[i + 1].text
                i += 2
            elif t.startswith("--split-string="):
                split = t.split("=", 1)[1]
                i += 1
            elif t == "--":
                i += 1
                break
            elif (t.startswith("-") and t != "-") or _ASSIGN_RE.match(t):
                i += 1
            else:
                break
        return args[i:], split

    def reads_program_from_stdin(self, name: str, args: list[Word]) -> bool:
        """True when a shell or interpreter would execute what arrives on stdin."""
        if name in _ELEVATE or name in ("eval", "source", "."):
            return True
        if name not in SHELLS and name not in INTERPRETERS and not _PY_RE.match(name):
            return False
        for w in args:
            t = w.text
            if t == "-" or t == "-s":
                return True
            if t.startswith("-") and len(t) > 1:
                if name in SHELLS and not t.startswith("--") and "c" in t:
                    return False
                if t in ("-c", "-e", "-E", "-m", "-p", "-r", "--eval", "--print"):
                    return False
                continue
            return False  # a script file
        return True

    def command(self, words: list[Word], st: ShellState, depth: int) -> Verdict:
        """Classify one command (name + args) after keywords and assignments."""

        head = words[0]
        if head.dynamic and DYN in head.text:
            if has_download(head.subs):
                return danger("downloaded text run as a command")
            # The name is unknown: judge the arguments as if they went to rm, the worst common case.
            guess = shell_rules.rule_rm(self, "rm", words[1:], st, depth)
            if guess.risk == "dangerous":
                return danger(f"command computed at run time with {guess.reason}")
            return normal("command name computed at run time")
        name = basename(head.text)
        args = words[1:]
        if name in _ELEVATE:
            return danger(f"privilege escalation with `{name}`")
        if name == "env":
            rest, split = self._skip_env(args)
            if split is not None:
                return worst([self.analyze(split, st.copy(), depth + 1), normal("env -S")])
            return self.command(rest, st, depth) if rest else ro("env")
        if name == "command" and args and args[0].text in ("-v", "-V"):
            return ro("command -v")
        if name == "command":
            rest = args[1:] if args and args[0].text == "-p" else args
            return self.command(rest, st, depth) if rest else ro("command")
        if name == "flock" and any(a.text in ("-c", "--command") for a in args):
            idx = next(i for i, a in enumerate(args) if a.text in ("-c", "--command"))
            if idx + 1 < len(args):
                return self.analyze(args[idx + 1].text, st.copy(), depth + 1)
        if name in _WRAPPERS:
            rest = self._skip_wrapper(name, args)
            if not rest:
                return ro(name) if name == "xargs" else normal(f"`{name}` with no command")
            inner = self.command(rest, st, depth)
            return (
                inner if inner.risk != "read_only" or name != "xargs" else worst([inner, ro(name)])
            )
        if name == "watch":
            rest = self._skip_wrapper_valued(args, {"-n", "--interval", "-d"})
            return self.analyze(" ".join(w.text for w in rest), st.copy(), depth + 1)
        if name in SHELLS or name in INTERPRETERS or _PY_RE.match(name):
            return self.interpreter(name, args, st, depth)
        if name in ("eval", "source", "."):
            if has_download(word_subs(args)):
                return danger(f"`{name}` of downloaded code")
            if name == "eval":
                return worst(
                    [
                        self.analyze(" ".join(w.text for w in args), st.copy(), depth + 1),
                        normal("eval"),
                    ]
                )
            return normal(f"`{name}` runs a script in this shell")
        verdict = shell_rules.dispatch(self, name, args, st, depth)
        if verdict.risk == "read_only":
            secret = private_target(args, st)
            if secret is not None:
                # Reading is harmless to the disk, but the output goes to the model provider.
                return normal(f"reads {secret}, a private file outside the workspace")
        return verdict

    def _skip_wrapper_valued(self, args: list[Word], valued: set[str]) -> list[Word]:
        i = 0
        while i < len(args) and args[i].text.startswith("-"):
            i += 2 if args[i].text in valued else 1
        return args[i:]

    def interpreter(self, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
        """A shell or language runtime: re-enter `-c` strings, flag downloaded code."""
        if has_download(word_subs(args)):
            return danger(f"`{name}` runs downloaded code")
        if name not in SHELLS:
            return normal(f"runs `{name}` code")
        i, has_c = 0, False
        while i < len(args):
            t = args[i].text
            if t in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if t == "--" or t == "-":
                i += 1
                break
            if (t.startswith("-") or t.startswith("+")) and len(t) > 1:
                has_c = has_c or (not t.startswith("--") and "c" in t)
                i += 1
                continue
            break
        if has_c and i < len(args):
            inner = self.analyze(args[i].text, st.copy(), depth + 1)
            return worst([inner, normal(f"`{name} -c` runs a shell")])
        if i < len(args):
            return normal(f"`{name}` runs a script")
        return normal(f"`{name}` runs a shell")


def classify_command(cmd: str, workspace: Path) -> Classification:
    """Classify a bash command run with cwd = workspace; never raises."""
    try:
        v = analyze_unguarded(cmd, workspace)
    except Exception:  # a classifier bug must never let a command through as safe
        return Classification("dangerous", "command could not be analysed")
    return Classification(v.risk, v.reason)


def analyze_unguarded(cmd: str, workspace: Path) -> Verdict:
    """The classifier without its safety net (tests use it to find crashes)."""
    if len(cmd) > _MAX_LEN:
        return normal("command too long to analyse")
    home = Path(os.environ.get("HOME") or os.path.expanduser("~")).resolve()
    ws = workspace.resolve()
    an = Analyzer(ws, home)
    v = an.analyze(cmd, ShellState(ws, home, ws), 0)
    if v.risk == "read_only" and not v.names:
        return Verdict("read_only", "nothing to run")
    return v
