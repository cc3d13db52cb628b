"""The bash command classifier: read_only, normal or dangerous, with a human reason.

The command is lexed into simple commands (split on `&&`, `||`, `|`, `;`, `&`, newlines), every
substitution and re-entered string (`bash -c`, `eval`, `find -exec`, `xargs`, text piped or fed to
a shell) is classified too, and the result is the worst part. read_only is an allow-list of
programs with the options known to be safe (shell_readonly); anything else is `normal` or worse,
and whatever the analyser cannot fully understand is never read_only.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ggd.tools.base import Risk
from ggd.tools.shell import feed as shell_feed
from ggd.tools.shell import rules as shell_rules
from ggd.tools.shell import run as shell_run
from ggd.tools.shell import secret_reads as shell_secrets
from ggd.tools.shell import taint as shell_taint
from ggd.tools.shell.builtin_rules import BUILTIN_RULES, EVALUATING, literal_code
from ggd.tools.shell.env import assignments_risk
from ggd.tools.shell.feed import SHELLS, is_interpreter
from ggd.tools.shell.lex import Redirect, Segment, Word, expand_words, lex_checked
from ggd.tools.shell.paths import (
    Location,
    ShellState,
    locate,
    private_target,
)
from ggd.tools.shell.readonly import SPECS, option_problem
from ggd.tools.shell.scan import DYN
from ggd.tools.shell.verdict import (
    Verdict,
    basename,
    danger,
    normal,
    ro,
    secret,
    worst,
)
from ggd.tools.shell.wrappers import ESCAPES, WRAPPERS, readings

_MAX_DEPTH = 24
# A pass notes every copy between variables; when the secrets reach a variable the pass did not
# know about (a copy made after its use, in a loop or a later line), the command is read again.
# The copies are syntax, so the second pass settles; more passes only come from nested re-reads.
_TAINT_PASSES = 4
# Longer commands cannot be analysed in bounded time: they are dangerous, whatever they say.
MAX_LEN = 100_000
_FORK_RE = re.compile(r"(?:function\s+)?([\w:.]+)\s*\(\s*\)\s*\{(.*?)\}", re.S)
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!"}
_KEYWORDS |= {"esac", "coproc"}
_HEADERS = {"for", "select", "case"}
_NETWORK = shell_feed.NETWORK


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
        segs, problems = lex_checked(text, str(self.home))
        if problems:
            verdicts.append(normal(f"the command has {problems[0]}, so it cannot be fully read"))
        feeding: tuple[str | None, str] | None = None  # what the pipeline so far writes
        leaks = False  # an earlier stage of this pipeline reads a credential
        stages: list[Word] = []  # earlier stages' words (`echo ~/.ssh/id_rsa | xargs cat`)
        for seg in segs:
            v = self.segment(seg, st, depth)
            verdicts.append(v)
            eff = self.effective(seg.words)
            head = eff[0] if eff else None
            name = basename(head.text) if head else ""
            if feeding is not None and head is not None:
                if head.dynamic and DYN in head.text:
                    verdicts.append(
                        danger(f"{feeding[1]} piped into a command computed at run time")
                    )
                elif shell_feed.reads_program_from_stdin(name, eff[1:]):
                    verdicts.append(shell_feed.fed(self, name, *feeding, st, depth))
                if leaks and name in _NETWORK:
                    verdicts.append(danger("a credential piped into a network command"))
                if name == "xargs" and any(self.reaches_private(w, st) for w in stages):
                    verdicts.append(normal("`xargs` gets private paths from the pipe"))
            if seg.op in ("|", "|&"):
                feeding = shell_feed.produced_text(eff)
                leaks = leaks or v.secret
                stages += eff[1:]
            else:
                feeding, leaks, stages = None, False, []
        return worst(verdicts)

    def first_words(self, text: str) -> list[Word]:
        """The command words of the last stage of text (what a substitution's output comes from)."""
        segs, _ = lex_checked(text, str(self.home))
        return self.effective(segs[-1].words) if segs else []

    def segment(self, seg: Segment, st: ShellState, depth: int) -> Verdict:
        """Classify one simple command with its substitutions and redirects."""
        verdicts, leak = self._around(seg, st, depth)
        words = expand_words(seg.words, str(self.home))
        shell_taint.record(self, seg, words, st)
        shown = shell_taint.printed(self, seg, words, st)
        if shown is not None:
            verdicts.append(secret(normal(f"prints `${shown}`, which may hold a secret")))
        if any("@P" in w.vars for w in words):
            verdicts.append(normal("a prompt expansion (`@P`) runs substitutions in a variable"))
        if seg.op == "(" and words:
            # `name() { ...; }`: the body is the segments that follow; the definition itself
            # redefines a name.
            return worst([*verdicts, normal(f"defines the shell function `{words[-1].text}`")])
        i, assigns, done = self._prefix(words, verdicts, st, depth)
        if done is not None:
            return done
        rest = words[i:]
        if not rest:
            verdicts.append(assignments_risk(assigns, self.workspace, plain=True))
            code = literal_code(self, [Word(v) for _, v in assigns], st, depth)
            if code is not None:
                verdicts.append(code)
            if any(self.reaches_private(Word(v, glob=True), st) for _, v in assigns):
                verdicts.append(normal("a variable is set to a private path"))
            return worst(verdicts)
        verdicts.append(assignments_risk(assigns, self.workspace, plain=False))
        verdicts.append(self.command(rest, st, depth))
        verdicts += shell_feed.programs_fed(self, seg, rest, leak is not None, st, depth)
        if any(DYN in w.text for w in rest):
            verdicts.append(self._split_variant(rest, st, depth))
        return worst(verdicts)

    def _around(
        self, seg: Segment, st: ShellState, depth: int
    ) -> tuple[list[Verdict], Verdict | None]:
        """What a command's substitutions, arithmetic and redirects do, and a secret it leaks."""
        verdicts = [self.analyze(sub, st.copy(), depth + 1) for sub in seg.subs]
        for body in seg.arith:
            # Normally arithmetic; only a body that reads as a dangerous command counts.
            v = self.analyze(body, st.copy(), depth + 1)
            if v.risk == "dangerous":
                verdicts.append(v)
        verdicts += [self.redirect(r, st) for r in seg.redirects]
        leak = shell_secrets.redirect_secret(self, seg, st)
        if leak is not None:
            verdicts.append(leak)
        return verdicts, leak

    def _prefix(
        self, words: list[Word], verdicts: list[Verdict], st: ShellState, depth: int
    ) -> tuple[int, list[tuple[str, str]], Verdict | None]:
        """Read the assignments and keywords before the program: where it starts, the
        assignments, and the whole verdict when the segment is decided here (a loop header,
        `[[`). Adds what it finds on the way to `verdicts`."""
        i = 0
        assigns: list[tuple[str, str]] = []
        while i < len(words):
            w = words[i]
            t = w.text
            if w.assign:
                key, _, value = t.partition("=")
                key = key.split("[", 1)[0].rstrip("+")
                if key == "PATH" and not set(w.vars) <= {"PATH"}:
                    value = value.replace(DYN, "?")  # an unknown entry, not `$PATH` itself
                assigns.append((key, value))
                i += 1
                continue
            if w.quoted:
                break
            if assigns and (t in _HEADERS or t in _KEYWORDS or t in ("function", "[[")):
                # After an assignment bash runs `[[`, `for`, `if`... as plain program names; we
                # also read on as if they were keywords, and keep the worse.
                verdicts.append(assignments_risk(assigns, self.workspace, plain=False))
                verdicts.append(normal(f"runs a program named `{t}`"))
                assigns = []
            if t in _HEADERS:
                loop = [x for x in words[i + 1 :] if x.text not in ("in", "do")]
                if any(self.reaches_private(x, st) for x in loop):
                    verdicts.append(normal("the loop goes over private files"))
                return i, assigns, worst(verdicts)
            if t == "function":
                name = words[i + 1].text if i + 1 < len(words) else "?"
                verdicts.append(normal(f"defines the shell function `{name}`"))
                i += 2
                continue
            if t == "[[":
                code = literal_code(self, words[i:], st, depth)
                return i, assigns, worst([*verdicts, code or ro("[[")])
            if t in _KEYWORDS:
                i += 1
                continue
            break
        return i, assigns, None

    def reaches_private(self, w: Word, st: ShellState) -> bool:
        """True when a word (a path, a glob, a value) may name a private file or folder."""
        return shell_secrets.reaches_private(self, w, st)

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
        while i < len(words) and (words[i].assign or not words[i].quoted):
            t = words[i].text
            if words[i].assign or t in _KEYWORDS:
                i += 1
            else:
                break
        words = words[i:]
        for _ in range(_MAX_DEPTH):
            if not words:
                break
            name = basename(words[0].text)
            if name == "env":
                words = shell_run.skip_env(self, words[1:])[0]
            elif name in WRAPPERS and name not in ("xargs", "watch"):
                if name == "command" and len(words) > 1 and words[1].text in ("-v", "-V"):
                    return words
                words = readings(name, words[1:])[0].rest
            else:
                return words
        return words

    def command(self, words: list[Word], st: ShellState, depth: int) -> Verdict:
        """Classify one command (name + args) after keywords and assignments."""
        head = words[0]
        if head.dynamic and DYN in head.text:
            return shell_run.computed(self, words, st, depth)
        name = basename(head.text)
        args = words[1:]
        if head.text in _KEYWORDS and not head.quoted and args:
            return self.command(args, st, depth)  # `time { ...; }`, `! cmd`
        if name in st.renamed:
            target = st.renamed[name]
            if DYN in target:
                return danger(f"`{name}` was redefined earlier in the command")
            # Judge it as the new program and as the old one: the redefinition may not apply.
            plain = st.copy()
            plain.renamed = {k: v for k, v in st.renamed.items() if k != name}
            redone = self.command([Word(target), *args], plain, depth)
            before = self.command(words, plain, depth)
            return worst([redone, before, normal(f"`{name}` was redefined to run `{target}`")])
        if name in ESCAPES:
            return danger(ESCAPES[name])
        if name == "env":
            return shell_run.env(self, args, st, depth)
        if name == "command" and args and args[0].text in ("-v", "-V"):
            return ro("command -v")
        if name == "flock" and any(a.text in ("-c", "--command") for a in args):
            k = next(k for k, a in enumerate(args) if a.text in ("-c", "--command"))
            text = args[k + 1].text if k + 1 < len(args) else ""
            return worst([self.analyze(text, st.copy(), depth + 1), normal("`flock -c`")])
        if name in WRAPPERS:
            return shell_run.wrapper(self, name, args, st, depth)
        if name in SHELLS or is_interpreter(name):
            return shell_feed.interpreter(self, name, args, st, depth)
        if name == "eval":
            return shell_feed.evaluate(self, args, st, depth)
        if name in ("source", "."):
            return shell_feed.source(self, name, args, st, depth)
        verdicts: list[Verdict] = []
        if name in EVALUATING:
            code = literal_code(self, args, st, depth)
            if code is not None:
                verdicts.append(code)
        rule = BUILTIN_RULES.get(name)
        if rule is not None:
            verdict = rule(self, name, args, st, depth)
            problem = option_problem(name, args) if verdict.risk == "read_only" else None
            if problem is not None and name in SPECS:
                verdict = normal(problem)
        else:
            verdict = shell_rules.dispatch(self, name, args, st, depth)
        if verdict.risk == "read_only":
            verdict = shell_secrets.secret_read(self, name, args, st) or verdict
        elif private_target(args, st) is not None:
            if name in _NETWORK:
                return danger(f"`{name}` sends {private_target(args, st)}, a credential")
            verdict = secret(verdict)
        return worst([*verdicts, verdict])


def classify_command(cmd: str, workspace: Path, gg_home: Path | None = None) -> Classification:
    """Classify a bash command run with cwd = workspace; never raises.

    gg_home (default: $GG_HOME, else ~/.gg) holds gg's own secrets: reading it needs approval.
    """
    try:
        v = analyze_unguarded(cmd, workspace, gg_home)
    except Exception:  # a classifier bug must never let a command through as safe
        return Classification("dangerous", "command could not be analysed")
    return Classification(v.risk, v.reason)


def analyze_unguarded(cmd: str, workspace: Path, gg_home: Path | None = None) -> Verdict:
    """The classifier without its safety net (tests use it to find crashes)."""
    if len(cmd) > MAX_LEN:
        return danger(f"command longer than {MAX_LEN} characters cannot be analysed")
    if DYN in cmd:
        return danger("command contains a NUL character")
    home = Path(os.environ.get("HOME") or os.path.expanduser("~")).resolve()
    if gg_home is None:
        raw = os.environ.get("GG_HOME")
        gg_home = Path(raw).expanduser() if raw else home / ".gg"
    ws = workspace.resolve()
    an = Analyzer(ws, home)
    tainted: set[str] = set()
    for _ in range(_TAINT_PASSES):
        st = ShellState(ws, home, ws, gg_home=gg_home.resolve(), tainted=set(tainted))
        v = an.analyze(cmd, st, 0)
        settled = shell_taint.settle(st)
        if settled <= tainted:
            break
        tainted = settled  # a copy found late (in a loop, a later line) counts everywhere
    else:
        v = worst([v, normal("a secret is copied through more variables than this follows")])
    if v.risk == "read_only" and not v.names:
        return Verdict("read_only", "nothing to run")
    return v
