"""Text that a shell or interpreter runs: `-c` strings, pipes, here-documents, `<(...)`, files.

A shell reading its program from stdin, a pipe or a here-document runs that text just as
`bash -c` would: literal text is classified as a command; text that cannot be known before it
runs (a download, a variable, a file, another program's output) is dangerous.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ggd.tools.shell.lex import Redirect, Segment, Word
from ggd.tools.shell.paths import ShellState
from ggd.tools.shell.scan import DYN, decode_ansi_c
from ggd.tools.shell.verdict import (
    Verdict,
    basename,
    danger,
    has_download,
    normal,
    word_subs,
    worst,
)

if TYPE_CHECKING:
    from ggd.tools.shell.classifier import Analyzer

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "rbash"}
SHELLS |= {"ksh93", "pdksh", "oksh", "loksh", "posh", "elvish", "nu", "xonsh", "busybox-sh"}
INTERPRETERS = {"perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "tclsh", "osascript"}
INTERPRETERS |= {"awk", "gawk", "mawk", "nawk", "expect", "wish", "rscript", "Rscript", "julia"}
INTERPRETERS |= {"luajit", "pwsh", "powershell", "groovy", "scala", "kotlin", "elixir", "erl"}
INTERPRETERS |= {"guile", "racket", "sbcl", "clisp", "ocaml", "ghci", "runghc", "swift", "jshell"}
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "lwp-download", "http", "https", "xh", "curlie"}
DOWNLOADERS |= {"nc", "ncat", "netcat", "socat", "openssl", "lynx", "w3m", "links", "elinks"}
# Programs that send what they read over the network (a leaked credential on their stdin).
NETWORK = DOWNLOADERS | {"scp", "sftp", "ssh", "rsync", "ftp", "tftp", "telnet", "git", "mail"}
NETWORK |= {"sendmail", "mutt", "s3cmd", "aws", "gsutil", "rclone", "gh"}
_PY_RE = re.compile(r"^(?:python|pypy|ipython)[0-9.]*$")
STDIN_PATHS = {"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}
_STDIN_RE = re.compile(r"(?:<&?\s*0|/dev/stdin|/dev/fd/0|/proc/self/fd/0)")
_EXPANDS_RE = re.compile(r"\$[A-Za-z_{(0-9@*#?$!-]|`")


def is_interpreter(name: str) -> bool:
    """A language runtime (not a shell) that runs code."""
    return name in INTERPRETERS or _PY_RE.match(name) is not None


def produced_text(words: list[Word]) -> tuple[str | None, str]:
    """What a pipeline stage writes: (its text when literal, a label for people)."""
    if not words:
        return None, "the output of a command"
    name = basename(words[0].text)
    args = words[1:]
    if name in DOWNLOADERS:
        return None, "download"
    if name in ("echo", "printf") and not any(w.dynamic or DYN in w.text for w in args):
        texts = [w.text for w in args]
        if name == "echo":
            while texts and re.fullmatch(r"-[neE]+", texts[0]):
                texts.pop(0)
            raw = " ".join(texts)
            # `echo` in sh (dash) decodes escapes; bash's does with -e: read it both ways.
            decoded = decode_ansi_c(raw)
            return raw if decoded == raw else raw + "\n" + decoded, "echoed text"
        if not texts:
            return "", "printed text"
        fmt, rest = decode_ansi_c(texts[0]), texts[1:]
        for arg in rest:
            fmt = re.sub(
                r"%[-0-9.]*[sbcdq]", decode_ansi_c(arg).replace("\\", "\\\\"), fmt, count=1
            )
        return fmt + "\n" + " ".join(rest), "printed text"
    if name in ("base64", "xxd", "gunzip", "zcat", "openssl", "gzip", "xz", "bzip2", "rev", "tr"):
        return None, "decoded text"
    if name == "cat" and not args:
        return None, "stdin"
    return None, f"the output of `{name}`"


def reads_program_from_stdin(name: str, args: list[Word]) -> bool:
    """True when a shell, interpreter, eval or source would execute what arrives on stdin."""
    if name in ("source", "."):
        return not args or args[0].text in STDIN_PATHS
    if name not in SHELLS and not is_interpreter(name):
        return False
    i = 0
    while i < len(args):
        t = args[i].text
        i += 1
        if t in STDIN_PATHS or t == "-s":
            return True
        if t[:1] in "-+" and len(t) > 1:
            if name not in SHELLS:
                if t in ("-c", "-e", "-E", "-m", "-p", "-r", "--eval", "--print", "-f", "-x"):
                    return False
                continue
            if not t.startswith("--") and "c" in t:
                return False
            if t in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 1
            continue
        return False  # a script file
    return True


def fed(
    an: Analyzer, name: str, text: str | None, label: str, st: ShellState, depth: int
) -> Verdict:
    """Risk of `name` running text that arrives on its stdin (None when unknown)."""
    if name not in SHELLS and name not in ("source", ".", "eval"):
        if label in ("download", "decoded text"):
            return danger(f"{label} piped into `{name}`")
        return normal(f"runs `{name}` code")
    if text is None:
        return danger(f"{label} piped into a shell")
    if DYN in text:
        return danger("text only known at run time fed to a shell")
    return worst(
        [an.analyze(text, st.copy(), depth + 1), normal("a shell runs the text fed to it")]
    )


def stdin_redirect(
    an: Analyzer, name: str, redirects: list[Redirect], st: ShellState, depth: int
) -> Verdict | None:
    """A shell whose stdin is a here-document, a here-string or a file runs that text."""
    for r in redirects:
        if r.op in ("<<", "<<-") and r.body is not None:
            body = r.body
            if r.body_expands and _EXPANDS_RE.search(body):
                return fed(an, name, None, "a here-document with expansions", st, depth)
            return fed(an, name, body, "a here-document", st, depth)
        if r.op == "<<<" and r.target is not None:
            return fed(an, name, r.target.text, "a here-string", st, depth)
        if r.op in ("<", "<>") and r.target is not None:
            if has_download(r.target.subs):
                return fed(an, name, None, "download", st, depth)
            return fed(an, name, None, f"the file `{r.target.text}`", st, depth)
    return None


def interpreter(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """A shell or language runtime: re-enter `-c` strings, flag downloaded or unknown code."""
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
        if DYN in args[i].text:
            return danger(f"`{name} -c` runs text only known at run time")
        inner = an.analyze(args[i].text, st.copy(), depth + 1)
        return worst([inner, normal(f"`{name} -c` runs a shell")])
    if i < len(args):
        script = args[i]
        if script.subs:
            # `bash <(...)`: the substitution's output is the program.
            sub_words = an.first_words(script.subs[0])
            text, label = produced_text(sub_words)
            return fed(an, name, text, label, st, depth)
        if script.text in STDIN_PATHS:
            return normal(f"`{name}` runs what arrives on stdin")
        return normal(f"`{name}` runs a script")
    return normal(f"`{name}` runs a shell")


def source(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """`source`/`.`: a file (normal) or a substitution's output (classified or dangerous)."""
    if has_download(word_subs(args)):
        return danger(f"`{name}` of downloaded code")
    if args and args[0].subs and args[0].text.startswith(DYN):
        text, label = produced_text(an.first_words(args[0].subs[0]))
        return fed(an, name, text, label, st, depth)
    return normal(f"`{name}` runs a script in this shell")


def evaluate(an: Analyzer, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """eval: the joined words are a command; unknown text is dangerous."""
    if has_download(word_subs(args)):
        return danger("`eval` of downloaded code")
    text = " ".join(w.text for w in args)
    if DYN in text:
        return danger("`eval` of text only known at run time")
    return worst([an.analyze(text, st.copy(), depth + 1), normal("eval")])


def programs_fed(
    an: Analyzer, seg: Segment, rest: list[Word], leaks: bool, st: ShellState, depth: int
) -> list[Verdict]:
    """What reads the command's output or feeds its stdin as a program, and a network
    program that sends a leaked credential."""
    out: list[Verdict] = []
    eff = an.effective(rest)
    if eff and eff[0].dynamic and DYN in eff[0].text:
        piped = stdin_redirect(an, "sh", seg.redirects, st, depth)
        if piped is not None:  # `$SHELL <<< ...`: the program may well be a shell
            out.append(piped)
    for text in [t for w in [*rest, *(r.target for r in seg.redirects if r.target)]
                 for t in w.feeds]:  # fmt: skip
        # `cmd > >(sh)`, `tee >(sh)`, `exec 2> >(sh)`: the substitution reads cmd's output.
        inner = an.first_words(text)
        head = basename(inner[0].text) if inner else ""
        if inner and reads_program_from_stdin(head, inner[1:]):
            made = produced_text(eff) if eff else (None, "later output")
            out.append(fed(an, head, *made, st, depth))
    if eff:
        name = basename(eff[0].text)
        piped = stdin_redirect(an, name, seg.redirects, st, depth)
        if piped is not None and reads_program_from_stdin(name, eff[1:]):
            out.append(piped)
        if leaks and name in NETWORK:
            out.append(danger(f"`{name}` sends a credential from its stdin"))
    return out
