"""Classifier rules for shell builtins that change the shell itself or print its variables.

Redefining a name (`hash -p`, `alias`, functions, `enable`) changes what later words run; setting a
variable can change what later programs load; printing variables can show secrets. None of these
is read-only unless the table below knows the exact form is harmless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ggd.tools.shell.env import plain_risk
from ggd.tools.shell.lex import Word
from ggd.tools.shell.paths import ShellState
from ggd.tools.shell.scan import DYN, scan_subs
from ggd.tools.shell.taint import is_secret
from ggd.tools.shell.verdict import Verdict, basename, danger, normal, ro, secret, worst

if TYPE_CHECKING:
    from ggd.tools.shell.classifier import Analyzer

SHELL_BUILTINS = {
    "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
    "compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit",
    "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let",
    "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray",
    "readonly", "return", "set", "shift", "shopt", "source", ".", "suspend", "test", "[", "times",
    "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait", ":",
}  # fmt: skip
_SET_LETTERS = set("eEuxvfCTBbhn")
_SET_OPTIONS = {"errexit", "nounset", "xtrace", "verbose", "pipefail", "noglob", "noclobber"}
_SET_OPTIONS |= {"errtrace", "functrace", "braceexpand", "hashall", "notify", "noexec"}
_SHOPT_SAFE = {"globstar", "nullglob", "dotglob", "extglob", "failglob", "nocaseglob", "lastpipe"}
_SHOPT_SAFE |= {"nocasematch", "globasciiranges", "inherit_errexit", "checkwinsize"}
# Builtins whose words bash evaluates as arithmetic or array subscripts, where a literal
# `$(...)` in a quoted word still runs (`[[ 'a[$(cmd)]' -eq 0 ]]`, `read 'a[$(cmd)]'`).
EVALUATING = {"[[", "test", "[", "let", "declare", "typeset", "local", "export", "readonly"}
EVALUATING |= {"read", "mapfile", "readarray", "printf", "unset", "(("}


def literal_code(an: Analyzer, words: list[Word], st: ShellState, depth: int) -> Verdict | None:
    """Command substitutions written literally in words that the builtin will evaluate."""
    texts = [sub for w in words for sub in scan_subs(w.text.replace(DYN, ""))]
    if not texts:
        return None
    inner = [an.analyze(t, st.copy(), depth + 1) for t in texts]
    return worst([*inner, normal("a quoted `$(...)` here is evaluated by the shell")])


def _names(words: list[Word]) -> list[tuple[str, str]]:
    """(name, value) of `NAME=value` or bare `NAME` words (value `?` when unknown)."""
    out = []
    for w in words:
        name, eq, value = w.text.partition("=")
        name = name.split("[", 1)[0].rstrip("+")
        out.append((name, value if eq else "?"))
    return out


def _assign(an: Analyzer, pairs: list[tuple[str, str]], what: str) -> Verdict:
    verdicts = [v for n, val in pairs if (v := plain_risk(n, val, an.workspace)) is not None]
    return worst(verdicts) if verdicts else ro(what)


def rule_declare(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """declare/typeset/local/export/readonly: printing all variables or setting risky ones."""
    flags = [a.text for a in args if a.text.startswith(("-", "+")) and len(a.text) > 1]
    rest = [a for a in args if not (a.text.startswith(("-", "+")) and len(a.text) > 1)]
    letters = "".join(f[1:] for f in flags)
    if "n" in letters:
        return normal(f"`{name} -n` makes a name refer to another variable")
    if not rest and (name in ("export", "declare", "typeset", "readonly") or "p" in letters):
        if "f" in letters or "F" in letters:
            return ro(name)
        return secret(normal(f"`{name}` prints variables, which may hold secrets"))
    if "p" in letters and any(is_secret(a.text, st) for a in rest):
        return secret(normal(f"`{name} -p` prints variables that may hold secrets"))
    if "f" in letters or "F" in letters:
        return ro(name)
    return _assign(an, _names(rest), name)


def rule_set(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """set: shell options are harmless; bare `set` prints every variable."""
    if not args:
        return secret(normal("`set` prints every variable, which may hold secrets"))
    i = 0
    while i < len(args):
        t = args[i].text
        if t in ("--", "-"):
            return ro(name)  # the rest are positional parameters
        if t in ("-o", "+o"):
            if i + 1 < len(args) and args[i + 1].text not in _SET_OPTIONS:
                if not args[i + 1].text.startswith(("-", "+")):
                    return normal(f"`set -o {args[i + 1].text}` is not known to be harmless")
            i += 2
            continue
        if t[:1] in "-+" and set(t[1:]) <= _SET_LETTERS | {"o"}:
            i += 2 if "o" in t[1:] else 1
            if "o" in t[1:] and i - 1 < len(args) and args[i - 1].text not in _SET_OPTIONS:
                return normal(f"`set -o {args[i - 1].text}` is not known to be harmless")
            continue
        if t[:1] in "-+":
            return normal(f"`set {t}` is not known to be harmless")
        return ro(name)  # positional parameters
    return ro(name)


def rule_shopt(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """shopt: listing, and toggling a few glob options, are harmless."""
    opts = [a.text for a in args if not a.text.startswith("-")]
    flags = {a.text for a in args if a.text.startswith("-")}
    if not flags & {"-s", "-u"} or all(o in _SHOPT_SAFE for o in opts):
        return ro(name)
    return normal("`shopt` changes how the shell behaves")


def rule_unset(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """unset: forgetting variables or functions is harmless."""
    return ro(name)


def rule_read(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """read/mapfile/readarray: the variables they set, and mapfile's callback."""
    valued = {"read": set("adinNptu"), "mapfile": set("dnOsuCc"), "readarray": set("dnOsuCc")}
    val = valued.get(name, set())
    names: list[Word] = []
    verdicts: list[Verdict] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t.startswith("-") and len(t) > 1 and t != "--":
            letter = next((c for c in t[1:] if c in val), None)
            value = None
            if letter is not None:
                glued = t[t.index(letter) + 1 :]
                value = glued or (args[i + 1].text if i + 1 < len(args) else "")
                i += 0 if glued else 1
            if letter == "C":
                code = an.analyze(value or "", st.copy(), depth + 1)
                verdicts += [code, normal(f"`{name} -C` runs a command for each line")]
            elif letter == "a" and value is not None:
                names.append(Word(value))
        elif t != "--":
            names.append(args[i])
        i += 1
    if name != "read" and not names:
        names = [Word("MAPFILE")]
    elif name == "read" and not names:
        names = [Word("REPLY")]
    verdicts.append(_assign(an, _names(names), name))
    return worst(verdicts)


def rule_printf(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """printf: `-v NAME` assigns a variable."""
    if len(args) >= 2 and args[0].text == "-v":
        return _assign(an, _names([args[1]]), name)
    if args and args[0].text.startswith("-v"):
        return _assign(an, _names([Word(args[0].text[2:])]), name)
    return ro(name)


def rule_hash(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """hash: `-p PATH NAME` makes NAME run PATH; listing and forgetting are harmless."""
    texts = [a.text for a in args]
    if not any(t.startswith("-") and "p" in t[1:] for t in texts):
        return ro(name)
    idx = next(i for i, t in enumerate(texts) if t.startswith("-") and "p" in t[1:])
    target = texts[idx + 1] if idx + 1 < len(texts) else ""
    for alias in texts[idx + 2 :]:
        if alias not in SHELL_BUILTINS:  # builtins are found before the hash table
            st.renamed[alias] = DYN if DYN in target or not target else basename(target)
    return normal(f"`hash -p` makes a command name run `{target or '?'}`")


def rule_alias(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """alias: a definition's text is a command; listing is harmless."""
    defs = [a.text.partition("=") for a in args if "=" in a.text]
    if not defs:
        return ro(name)
    verdicts = [an.analyze(value, st.copy(), depth + 1) for _, _, value in defs]
    for key, _, _ in defs:
        st.renamed[key] = DYN
    return worst([*verdicts, normal("`alias` redefines a command name")])


def rule_enable(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """enable: `-f` loads a shared object into the shell; other forms redefine builtins."""
    if any(a.text.startswith("-") and "f" in a.text for a in args):
        return danger("`enable -f` loads a shared library into the shell")
    return normal("`enable` changes which builtins a name runs")


def rule_trap(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """trap: the action is a command the shell runs later."""
    rest = [a for a in args if a.text not in ("--",)]
    if not rest or rest[0].text in ("-l", "-p"):
        return ro(name)
    code = an.analyze(rest[0].text, st.copy(), depth + 1)
    return worst([code, normal("`trap` runs a command when a signal arrives")])


def rule_history(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """history: listing is harmless; -w/-a/-r/-d/-s/-c write, read or rewrite it."""
    if not args or (len(args) == 1 and args[0].text.isdigit()):
        return ro(name)
    return normal("`history` with options reads or writes the history file")


def rule_printenv(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """printenv: every variable, or one that may be a secret, goes to the model."""
    names = [a.text for a in args if not a.text.startswith("-")]
    if not names:
        return secret(normal("`printenv` prints every variable, which may hold secrets"))
    if any(DYN in n or is_secret(n, st) for n in names):
        return secret(normal("`printenv` prints a variable that may hold a secret"))
    return ro(name)


BUILTIN_RULES = {
    "declare": rule_declare, "typeset": rule_declare, "local": rule_declare,
    "export": rule_declare, "readonly": rule_declare, "set": rule_set, "shopt": rule_shopt,
    "unset": rule_unset, "read": rule_read, "mapfile": rule_read, "readarray": rule_read,
    "printf": rule_printf, "hash": rule_hash, "alias": rule_alias, "enable": rule_enable,
    "trap": rule_trap, "history": rule_history, "printenv": rule_printenv,
}  # fmt: skip
