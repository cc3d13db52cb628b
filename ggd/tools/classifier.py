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

from ggd.tools import shell_feed, shell_rules
from ggd.tools.base import Risk
from ggd.tools.shell_builtins import BUILTIN_RULES, EVALUATING, literal_code
from ggd.tools.shell_env import assignments_risk, is_secret_var
from ggd.tools.shell_feed import DOWNLOADERS, SHELLS, is_interpreter
from ggd.tools.shell_lex import Redirect, Segment, Word, lex_checked
from ggd.tools.shell_paths import (
    Location,
    ShellState,
    covers_private,
    locate,
    private_path,
    private_target,
)
from ggd.tools.shell_scan import DYN, expand_braces
from ggd.tools.shell_wrappers import ESCAPES, WRAPPERS, readings
from ggd.tools.verdict import (
    Verdict,
    basename,
    danger,
    has_download,
    normal,
    ro,
    worst,
)

_MAX_DEPTH = 24
# Longer commands cannot be analysed in bounded time: they are dangerous, whatever they say.
MAX_LEN = 100_000
_FORK_RE = re.compile(r"(?:function\s+)?([\w:.]+)\s*\(\s*\)\s*\{(.*?)\}", re.S)
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!"}
_KEYWORDS |= {"esac"}
_HEADERS = {"for", "select", "case"}
_NETWORK = DOWNLOADERS | {"scp", "sftp", "ssh", "rsync", "ftp", "tftp", "telnet", "git", "mail"}
_NETWORK |= {"sendmail", "mutt", "s3cmd", "aws", "gsutil", "rclone", "gh"}
_RECURSIVE = {"rg", "ag", "ack"}  # search every file under a folder argument
_MAYBE_RECURSIVE = {"grep", "egrep", "fgrep", "zgrep", "diff"}
# Read-only commands whose arguments are not files they print.
_NOT_READERS = {"echo", "printf", "test", "[", "[[", "true", "false", ":", "type", "which"}
_NOT_READERS |= {"whereis", "basename", "dirname", "pwd", "seq", "sleep", "expr", "factor", "cd"}
_NOT_READERS |= {"pushd", "popd", "command -v", "exit", "return", "break", "continue", "shift"}
_NOT_READERS |= {"wait", "jobs", "kill", "date", "cal", "ncal", "yes", "id", "groups", "tput"}
_NOT_READERS |= {"printenv", "set", "shopt", "unset", "declare", "local", "typeset", "hash"}
_NOT_READERS |= {"locale", "getconf", "uname", "pgrep", "ps", "numfmt", "pathchk", "mountpoint"}


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
        secret = False  # an earlier stage of this pipeline reads a credential
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
                if secret and name in _NETWORK:
                    verdicts.append(danger("a credential piped into a network command"))
            if seg.op in ("|", "|&"):
                feeding = shell_feed.produced_text(eff)
                secret = secret or v.secret
            else:
                feeding, secret = None, False
        return worst(verdicts)

    def first_words(self, text: str) -> list[Word]:
        """The command words of the last stage of text (what a substitution's output comes from)."""
        segs, _ = lex_checked(text, str(self.home))
        return self.effective(segs[-1].words) if segs else []

    def segment(self, seg: Segment, st: ShellState, depth: int) -> Verdict:
        """Classify one simple command with its substitutions and redirects."""
        verdicts = [self.analyze(sub, st.copy(), depth + 1) for sub in seg.subs]
        for body in seg.arith:
            # Normally arithmetic; only a body that reads as a dangerous command counts.
            v = self.analyze(body, st.copy(), depth + 1)
            if v.risk == "dangerous":
                verdicts.append(v)
        verdicts += [self.redirect(r, st) for r in seg.redirects]
        words = expand_words(seg.words, str(self.home))
        if any("@P" in w.vars for w in words):
            verdicts.append(normal("a prompt expansion (`@P`) runs substitutions in a variable"))
        if seg.op == "(" and words:
            # `name() { ...; }`: the body is the segments that follow; the definition itself
            # redefines a name.
            return worst([*verdicts, normal(f"defines the shell function `{words[-1].text}`")])
        i = 0
        assigns: list[tuple[str, str]] = []
        while i < len(words):
            w = words[i]
            t = w.text
            if w.assign:
                key, _, value = t.partition("=")
                assigns.append((key.split("[", 1)[0].rstrip("+"), value))
                i += 1
                continue
            if w.quoted:
                break
            if t in _HEADERS:
                loop = [x for x in words[i + 1 :] if x.text not in ("in", "do")]
                if any(self.reaches_private(x, st) for x in loop):
                    verdicts.append(normal("the loop goes over private files"))
                return worst(verdicts)
            if t == "function":
                name = words[i + 1].text if i + 1 < len(words) else "?"
                verdicts.append(normal(f"defines the shell function `{name}`"))
                i += 2
                continue
            if t == "[[":
                code = literal_code(self, words[i:], st, depth)
                return worst([*verdicts, code or ro("[[")])
            if t in _KEYWORDS:
                i += 1
                continue
            break
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
        v = self.command(rest, st, depth)
        verdicts.append(v)
        eff = self.effective(rest)
        if eff:
            name = basename(eff[0].text)
            fed = shell_feed.stdin_redirect(self, name, seg.redirects, st, depth)
            if fed is not None and shell_feed.reads_program_from_stdin(name, eff[1:]):
                verdicts.append(fed)
            if v.risk == "read_only":
                verdicts.append(self.reads(seg, rest))
        if any(DYN in w.text for w in rest):
            verdicts.append(self._split_variant(rest, st, depth))
        return worst(verdicts)

    def reads(self, seg: Segment, words: list[Word]) -> Verdict:
        """A read-only command still needs approval when what it prints may be a secret."""
        st = ShellState(self.workspace, self.home, self.workspace)
        for r in seg.redirects:
            if r.op in ("<", "<>") and r.target is not None:
                if private_path(r.target.text, st, r.target.glob or DYN in r.target.text):
                    v = normal(f"reads {r.target.text}, a private file outside the workspace")
                    v.secret = True
                    return v
        secrets = [n for w in words for n in w.vars if is_secret_var(n)]
        if secrets:
            return normal(f"prints `${secrets[0]}`, which may hold a secret")
        return ro(basename(words[0].text))

    def reaches_private(self, w: Word, st: ShellState) -> bool:
        """True when a word (a path, a glob, a value) may name a private file or folder."""
        return any(
            private_path(alt, st, w.glob or DYN in alt) or covers_private(alt, st)
            for alt in w.alternatives()
        )

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
            if words[i].assign or t in _KEYWORDS or t == "time":
                i += 1
            else:
                break
        words = words[i:]
        for _ in range(_MAX_DEPTH):
            if not words:
                break
            name = basename(words[0].text)
            if name == "env":
                words = self._skip_env(words[1:])[0]
            elif name in WRAPPERS and name not in ("xargs", "watch"):
                if name == "command" and len(words) > 1 and words[1].text in ("-v", "-V"):
                    return words
                words = readings(name, words[1:])[0].rest
            else:
                return words
        return words

    def _skip_env(self, args: list[Word]) -> tuple[list[Word], str | None, list[Word], str | None]:
        """env's command, its -S string, its assignments and its -C folder."""
        i, split, chdir = 0, None, None
        assigns: list[Word] = []
        while i < len(args):
            t = args[i].text
            if t in ("-u", "--unset") or t.startswith("--unset="):
                i += 1 if "=" in t else 2
            elif t in ("-C", "--chdir") or t.startswith(("--chdir=", "-C")):
                chdir = t.split("=", 1)[1] if "=" in t else (t[2:] or None)
                if chdir is None and i + 1 < len(args):
                    chdir = args[i + 1].text
                    i += 1
                i += 1
            elif t in ("-S", "--split-string") and i + 1 < len(args):
                split = args[i + 1].text
                i += 2
            elif t.startswith(("--split-string=", "-S")):
                split = t.split("=", 1)[1] if "=" in t else t[2:]
                i += 1
            elif t == "--":
                i += 1
                break
            elif t.startswith("-") and t != "-":
                i += 1
            elif "=" in t and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", t):
                assigns.append(args[i])
                i += 1
            else:
                break
        return args[i:], split, assigns, chdir

    def command(self, words: list[Word], st: ShellState, depth: int) -> Verdict:
        """Classify one command (name + args) after keywords and assignments."""
        head = words[0]
        if head.dynamic and DYN in head.text:
            return self._computed(words, st, depth)
        name = basename(head.text)
        args = words[1:]
        if name in st.renamed:
            target = st.renamed[name]
            if DYN in target:
                return danger(f"`{name}` was redefined earlier in the command")
            redone = self.command([Word(target), *args], st, depth) if target != name else ro(name)
            return worst([redone, normal(f"`{name}` was redefined to run `{target}`")])
        if name in ESCAPES:
            return danger(ESCAPES[name])
        if name == "env":
            return self._env(args, st, depth)
        if name == "command" and args and args[0].text in ("-v", "-V"):
            return ro("command -v")
        if name == "flock" and any(a.text in ("-c", "--command") for a in args):
            k = next(k for k, a in enumerate(args) if a.text in ("-c", "--command"))
            code = args[k + 1].text if k + 1 < len(args) else ""
            return worst([self.analyze(code, st.copy(), depth + 1), normal("`flock -c`")])
        if name in WRAPPERS:
            return self._wrapper(name, args, st, depth)
        if name in SHELLS or is_interpreter(name):
            return shell_feed.interpreter(self, name, args, st, depth)
        if name == "eval":
            return shell_feed.evaluate(self, args, st, depth)
        if name in ("source", "."):
            return shell_feed.source(self, name, args, st, depth)
        verdicts = []
        if name in EVALUATING:
            code = literal_code(self, args, st, depth)
            if code is not None:
                verdicts.append(code)
        rule = BUILTIN_RULES.get(name)
        verdict = (
            rule(self, name, args, st, depth)
            if rule
            else shell_rules.dispatch(self, name, args, st, depth)
        )
        if verdict.risk == "read_only":
            verdict = self._secret_read(name, args, st) or verdict
        elif name in _NETWORK and private_target(args, st) is not None:
            verdict = danger(f"`{name}` sends {private_target(args, st)}, a credential")
        return worst([*verdicts, verdict])

    def _secret_read(self, name: str, args: list[Word], st: ShellState) -> Verdict | None:
        """A reader pointed at a credential (or a folder holding them, recursively)."""
        if name in _NOT_READERS:
            return None
        secret = private_target(args, st)
        recursive = name in _RECURSIVE or (
            name in _MAYBE_RECURSIVE
            and any(
                (a.text[:1] == "-" and a.text[1:2] != "-" and ("r" in a.text or "R" in a.text))
                or a.text in ("--recursive", "--dereference-recursive")
                for a in args
            )
        )
        if secret is None and recursive:
            secret = next((a.text for a in args if covers_private(a.text, st)), None)
        if secret is None:
            secret = next(
                (a.text for a in args for sub in a.subs if self._sub_reaches_private(sub, st)),
                None,
            )
        relative = [a for a in args if not a.text.startswith(("-", "/")) and a.text]
        if secret is None and st.cwd is None and relative:
            return normal(f"`{name}` reads from a folder only known at run time")
        if secret is None:
            return None
        # Reading is harmless to the disk, but the output goes to the model provider.
        shown = secret.replace(DYN, "…").strip() or "a computed path"
        v = normal(f"reads {shown}, a private file outside the workspace")
        v.secret = True
        return v

    def _sub_reaches_private(self, sub: str, st: ShellState) -> bool:
        segs, _ = lex_checked(sub, str(self.home))
        return any(self.reaches_private(w, st) for seg in segs for w in seg.words[1:])

    def _computed(self, words: list[Word], st: ShellState, depth: int) -> Verdict:
        """A command whose name is only known at run time."""
        head = words[0]
        if has_download(head.subs):
            return danger("downloaded text run as a command")
        # The name is unknown: judge the arguments as if they went to rm or a shell.
        guesses = [shell_rules.rule_rm(self, "rm", words[1:], st, depth)]
        guesses.append(shell_feed.interpreter(self, "sh", words[1:], st, depth))
        for guess in guesses:
            if guess.risk == "dangerous":
                return danger(f"command computed at run time with {guess.reason}")
        return normal("command name computed at run time")

    def _env(self, args: list[Word], st: ShellState, depth: int) -> Verdict:
        rest, split, assigns, chdir = self._skip_env(args)
        pairs = [(a.text.partition("=")[0], a.text.partition("=")[2]) for a in assigns]
        verdicts = [assignments_risk(pairs, self.workspace, plain=False)]
        inner = st.copy() if chdir is not None else st
        if chdir is not None:
            from ggd.tools.shell_paths import realpath

            inner.cwd = None if DYN in chdir else realpath(chdir, st)
        if split is not None:
            verdicts += [self.analyze(split, inner.copy(), depth + 1), normal("env -S")]
        elif rest:
            verdicts.append(self.command(rest, inner, depth))
        else:
            verdicts.append(normal("`env` prints every variable, which may hold secrets"))
        return worst(verdicts)

    def _wrapper(self, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
        """A command that runs another: every reading of its options, values that write or run."""
        spec = WRAPPERS[name]
        all_readings = readings(name, args)
        verdicts: list[Verdict] = []
        for k, reading in enumerate(all_readings):
            vs = [
                self.write_target(w, st, f"{name} {o}")
                for o, w in reading.values.items()
                if o in spec.writes
            ]
            vs += [
                worst([self.analyze(w.text, st.copy(), depth + 1), normal(f"`{name} {o}`")])
                for o, w in reading.values.items()
                if o in spec.code
            ]
            rest = reading.rest
            if name == "watch" and rest:
                vs.append(self.analyze(" ".join(w.text for w in rest), st.copy(), depth + 1))
            elif name == "xargs" and rest:
                repl = reading.values.get("-I") or reading.values.get("--replace")
                if repl is not None:
                    rest = [
                        Word(w.text.replace(repl.text, DYN), dynamic=True)
                        if repl.text in w.text
                        else w
                        for w in rest
                    ]
                else:
                    rest = [*rest, Word(DYN, dynamic=True)]  # the words read from stdin
                vs.append(self.command(rest, st, depth))
            elif rest:
                vs.append(self.command(rest, st, depth))
            elif name in ("xargs", "time", "command", "builtin", "exec") and not vs:
                vs.append(ro(name))
            elif not vs:
                vs.append(normal(f"`{name}` with no command"))
            if spec.opaque:
                vs.append(normal(f"`{name}` does more than run the command"))
            v = worst(vs)
            if k == 0 or v.risk == "dangerous":
                verdicts.append(v)
        if len(all_readings) > 1:
            verdicts.append(normal(f"`{name}` has an option this classifier does not know"))
        return worst(verdicts)


def expand_words(words: list[Word], home: str) -> list[Word]:
    """Brace expansion: an unquoted `{a,b}` word becomes several words, as bash makes it."""
    out: list[Word] = []
    for w in words:
        if not w.brace or w.assign:
            out.append(w)
            continue
        alts = expand_braces(w.text)
        if len(alts) == 1:
            out.append(w)
            continue
        for alt in alts:
            text = home + alt[1:] if alt == "~" or alt.startswith("~/") else alt
            out.append(
                Word(
                    text, dynamic=w.dynamic, glob=w.glob, quoted=w.quoted, subs=w.subs, vars=w.vars
                )
            )
    return out


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
    v = an.analyze(cmd, ShellState(ws, home, ws, gg_home=gg_home.resolve()), 0)
    if v.risk == "read_only" and not v.names:
        return Verdict("read_only", "nothing to run")
    return v
