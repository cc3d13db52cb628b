"""Commands that run other commands: env, wrappers (shell_wrappers) and computed names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ggd.tools.shell import feed as shell_feed
from ggd.tools.shell import rules as shell_rules
from ggd.tools.shell.env import assignments_risk
from ggd.tools.shell.lex import Word
from ggd.tools.shell.paths import ShellState, private_target, realpath
from ggd.tools.shell.scan import DYN
from ggd.tools.shell.verdict import Verdict, danger, has_download, normal, ro, secret, worst
from ggd.tools.shell.wrappers import WRAPPERS, readings

if TYPE_CHECKING:
    from ggd.tools.shell.classifier import Analyzer


def skip_env(
    an: Analyzer, args: list[Word]
) -> tuple[list[Word], str | None, list[Word], str | None]:
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
        elif "=" in t[1:]:  # env takes any NAME=VALUE, even names bash would refuse
            assigns.append(args[i])
            i += 1
        else:
            break
    return args[i:], split, assigns, chdir


def computed(an: Analyzer, words: list[Word], st: ShellState, depth: int) -> Verdict:
    """A command whose name is only known at run time."""
    head = words[0]
    if has_download(head.subs):
        return danger("downloaded text run as a command")
    # The name is unknown: judge the arguments as if they went to rm or a shell.
    guesses = [shell_rules.rule_rm(an, "rm", words[1:], st, depth)]
    guesses.append(shell_feed.interpreter(an, "sh", words[1:], st, depth))
    for guess in guesses:
        if guess.risk == "dangerous":
            return danger(f"command computed at run time with {guess.reason}")
    return normal("command name computed at run time")


def env(an: Analyzer, args: list[Word], st: ShellState, depth: int) -> Verdict:
    rest, split, assigns, chdir = skip_env(an, args)
    pairs = [(a.text.partition("=")[0], a.text.partition("=")[2]) for a in assigns]
    verdicts = [assignments_risk(pairs, an.workspace, plain=False)]
    inner = st.copy() if chdir is not None else st
    if chdir is not None:
        inner.cwd = None if DYN in chdir else realpath(chdir, st)
    if split is not None:
        verdicts += [an.analyze(split, inner.copy(), depth + 1), normal("env -S")]
    elif rest:
        verdicts.append(an.command(rest, inner, depth))
    else:
        verdicts.append(secret(normal("`env` prints every variable, which may hold secrets")))
    return worst(verdicts)


def wrapper(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """A command that runs another: every reading of its options, values that write or run."""
    spec = WRAPPERS[name]
    all_readings = readings(name, args)
    verdicts: list[Verdict] = []
    for k, reading in enumerate(all_readings):
        read = private_target(
            [w for o, w in reading.values.items() if o not in spec.writes and o not in spec.code],
            st,
        )
        if read is not None:  # `xargs -a ~/.ssh/id_rsa echo`
            verdicts.append(secret(normal(f"`{name}` reads {read}, a private file")))
        vs = [
            an.write_target(w, st, f"{name} {o}")
            for o, w in reading.values.items()
            if o in spec.writes
        ]
        vs += [
            worst([an.analyze(w.text, st.copy(), depth + 1), normal(f"`{name} {o}`")])
            for o, w in reading.values.items()
            if o in spec.code
        ]
        rest = reading.rest
        if name == "watch" and rest:
            vs.append(an.analyze(" ".join(w.text for w in rest), st.copy(), depth + 1))
        elif name == "xargs" and rest:
            repl = reading.values.get("-I") or reading.values.get("--replace")
            if repl is not None:
                rest = [
                    Word(w.text.replace(repl.text, DYN), dynamic=True) if repl.text in w.text else w
                    for w in rest
                ]
            else:
                rest = [*rest, Word(DYN, dynamic=True)]  # the words read from stdin
            vs.append(an.command(rest, st, depth))
        elif rest:
            vs.append(an.command(rest, st, depth))
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
