"""Classifier rules for system tools, archives and network programs, and option helpers.

`tar`, `dd`, `kill`, `systemctl`, `date`, `crontab`... and the options of otherwise read-only or
network programs that write a file or run a local program (`tree -o`, `rg --pre`, `ssh -o
ProxyCommand`, `rsync -e`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ggd.tools.shell.lex import Word
from ggd.tools.shell.paths import ShellState
from ggd.tools.shell.scan import DYN
from ggd.tools.shell.verdict import Verdict, danger, normal, ro, worst

if TYPE_CHECKING:
    from ggd.tools.shell.classifier import Analyzer

_POWER = {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep"}
_POWER |= {"rescue", "emergency", "default", "isolate", "soft-reboot", "suspend-then-hibernate"}


def split_args(args: list[Word], valued: set[str]) -> tuple[list[str], list[Word], dict[str, Word]]:
    """Split args into flags, positionals and values of valued options (`-t X`, `--opt=X`)."""
    flags: list[str] = []
    pos: list[Word] = []
    values: dict[str, Word] = {}
    i, done = 0, False
    while i < len(args):
        w = args[i]
        t = w.text
        if done or not t.startswith("-") or t == "-":
            pos.append(w)
        elif t == "--":
            done = True
        elif t in valued and i + 1 < len(args):
            values[t] = args[i + 1]
            flags.append(t)
            i += 1
        elif t.startswith("--") and "=" in t:
            key, val = t.split("=", 1)
            values[key] = Word(val, dynamic=DYN in val)
            flags.append(key)
        else:
            flags.append(t)
        i += 1
    return flags, pos, values


def short_flag(flags: list[str], letter: str, long: str) -> bool:
    return any(f == long or (not f.startswith("--") and letter in f[1:]) for f in flags)


_TAR_EXEC = ("--checkpoint-action", "--to-command", "--use-compress-program", "--info-script",
             "--new-volume-script", "--rsh-command", "--rmt-command", "--index-file")  # fmt: skip


def tar_rule(
    an: Analyzer,
    args: list[Word],
    st: ShellState,
    flags: list[str],
    values: dict[str, Word],
    verdicts: list[Verdict],
) -> Verdict:
    """tar: programs it runs, the archive it creates and where it extracts."""
    texts = [a.text for a in args]
    for t in texts:
        key = t.split("=", 1)[0]
        if any(key == x or (len(key) >= 6 and key.startswith("--") and x.startswith(key))
               for x in _TAR_EXEC):  # fmt: skip
            return danger(f"`tar {key}` runs another program")
    first = texts[0] if texts else ""
    short = [f for f in flags if not f.startswith("--")]
    if first and not first.startswith("-"):
        short.append(first)
    letters = "".join(f.lstrip("-") for f in short)
    if "I" in letters or "F" in letters:
        return danger("`tar -I`/`-F` runs another program")
    if not any("x" in f for f in short) and not {"--extract", "--get"} & set(flags):
        verdicts = []  # -C only matters when extracting
    elif "P" in letters or "--absolute-names" in flags:
        verdicts.append(danger("`tar -xP` extracts to absolute paths anywhere"))
    creating = any(c in letters for c in "cruA") or {"--create", "--append", "--update"} & set(
        flags
    )
    if creating:
        archive: Word | None = None
        for k, a in enumerate(args):
            t = a.text
            if t.startswith("--file="):
                archive = Word(t.split("=", 1)[1])
            elif t == "--file" or (t[:1] == "-" and t[1:2] != "-" and "f" in t):
                glued = t[t.index("f") + 1 :] if t != "--file" else ""
                archive = Word(glued) if glued else (args[k + 1] if k + 1 < len(args) else None)
        if archive is None and first[:1] not in ("", "-") and "f" in first and len(args) > 1:
            archive = args[1]
        if archive is not None:
            verdicts.append(an.write_target(archive, st, "tar archive"))
    return worst([*verdicts, normal("`tar` writes files")])


def rule_misc(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """dd, kill, systemctl, init, date, crontab, sysctl, dmesg, hostname, timedatectl."""
    texts = [a.text for a in args]
    if name == "dd":
        outs = [Word(t[3:], dynamic=DYN in t) for t in texts if t.startswith("of=")]
        return worst(
            [normal("`dd` copies raw data"), *(an.write_target(w, st, "dd") for w in outs)]
        )
    if name == "kill":
        if texts[:1] in (["-l"], ["-L"]):
            return ro("kill -l")
        if any("PPID" in a.vars for a in args):
            return danger("`kill $PPID` kills gg itself")
        i = 2 if texts[:1] in (["-s"], ["-n"], ["--signal"]) else 0
        if i == 0 and texts and texts[0].startswith("-") and texts[0] != "--" and len(texts) > 1:
            i = 1
        pids = [t for t in texts[i:] if t != "--"]
        if "-1" in pids or "1" in pids:
            return danger("kill of every process (or init)")
        return normal("`kill` signals processes")
    if name in ("systemctl", "loginctl"):
        if set(texts) & _POWER:
            return danger(f"`{name}` powers off, reboots or isolates the system")
        if texts and texts[0] in ("status", "show", "cat", "is-active", "is-enabled", "list-units"):
            return ro(name)
        return normal(f"`{name}` manages services")
    if name in ("init", "telinit"):
        if texts and texts[0] in ("0", "6", "1", "s", "S"):
            return danger(f"`{name} {texts[0]}` changes the runlevel")
        return normal(f"`{name}`")
    if name == "date":
        _, pos, _ = split_args(args, {"-d", "--date", "-r", "--reference", "-f", "--file"})
        if any(t in ("-s",) or t.startswith("--set") for t in texts) or any(
            not w.text.startswith("+") for w in pos
        ):
            return danger("`date` sets the system clock")
        return ro("date")
    if name == "crontab":
        if any(t.startswith("-") and not t.startswith("--") and "r" in t for t in texts):
            return danger("`crontab -r` removes every cron job")
        if texts in (["-l"], ["-l", "-u"]) or texts == ["-V"]:
            return ro("crontab -l")
        return danger("`crontab` installs jobs that run later, outside the sandbox")
    if name == "sysctl":
        if any(t in ("-w", "--write", "-p", "--load") or "=" in t for t in texts):
            return danger("`sysctl` changes kernel parameters")
        return ro(name)
    if name == "timedatectl":
        if texts and texts[0].startswith("set"):
            return danger("`timedatectl` sets the system clock")
        return ro(name)
    if name == "dmesg":
        return (
            normal("`dmesg` clears the kernel log") if set(texts) & {"-c", "-C", "-D"} else ro(name)
        )
    # hostname
    return (
        ro(name) if all(t.startswith("-") for t in texts) else normal("`hostname` renames the host")
    )


def rule_pkill(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """pkill/killall: every process of a user, or by a name that matches gg itself."""
    texts = [a.text for a in args]
    if any(t in ("-u", "--user", "-U", "--uid") or t.startswith(("--user=", "-u")) for t in texts):
        return danger(f"`{name} -u` kills every process of a user, gg included")
    names = [t for t in texts if not t.startswith("-")]
    if any(re.search(r"python|ggd|\bgg\b|bash|sh$|^\.|\*", t) for t in names):
        return danger(f"`{name}` matches gg's own processes")
    return normal(f"`{name}` signals processes")


# Options of otherwise read-only programs that name a file they write.
_WRITE_OPTS = {"tree": {"-o"}, "less": {"-o", "-O", "--log-file", "--LOG-FILE"}, "file": set()}


_EXEC_OPTS = {"rg": {"--pre"}, "sort": {"--compress-program"}}


def exec_options(name: str, args: list[Word]) -> list[tuple[str, Word]]:
    """(option, program) for each option of name that runs a program."""
    return _valued(_EXEC_OPTS.get(name), args)


def write_options(name: str, args: list[Word]) -> list[tuple[str, Word]]:
    """(option, file) for each write option given to name."""
    return _valued(_WRITE_OPTS.get(name), args)


def _valued(opts: set[str] | None, args: list[Word]) -> list[tuple[str, Word]]:
    out: list[tuple[str, Word]] = []
    if not opts:
        return out
    for k, a in enumerate(args):
        t = a.text
        key = t.split("=", 1)[0] if t.startswith("--") else t[:2]
        if key in opts:
            value = t.split("=", 1)[1] if "=" in t and t.startswith("--") else t[len(key) :]
            if value:
                out.append((key, Word(value)))
            elif k + 1 < len(args):
                out.append((key, args[k + 1]))
    return out


# Options that make network tools run a local program.
NET_EXEC = {"ssh", "scp", "sftp", "rsync", "zip", "git-upload-pack"}
_NET_EXEC_RE = re.compile(
    r"(?i)^(?:-o)?(?:proxycommand|localcommand|permitlocalcommand|knownhostscommand"
    r"|match\s+exec)|^--rsh|^-e$|^-S$|^-TT|^--unzip-command|^--rsync-path"
)


def net_exec(name: str, args: list[Word]) -> Verdict | None:
    """ssh -o ProxyCommand, scp -S, rsync -e, zip -TT: options that run a local program."""
    texts = [a.text for a in args]
    for k, t in enumerate(texts):
        nxt = texts[k + 1] if k + 1 < len(texts) else ""
        if t == "-o" and _NET_EXEC_RE.match(nxt.replace("=", " ").split(" ")[0] or nxt):
            return danger(f"`{name} -o {nxt.split('=')[0]}` runs a local command")
        if t.startswith("-o") and len(t) > 2 and _NET_EXEC_RE.match(t[2:].split("=")[0]):
            return danger(f"`{name} {t.split('=')[0]}` runs a local command")
        if name == "rsync" and (t in ("-e", "--rsh") or t.startswith("--rsh=")):
            prog = nxt if "=" not in t else t.split("=", 1)[1]
            if not prog.split(" ")[0].endswith("ssh"):
                return danger("`rsync -e` runs a program other than ssh")
        if name == "scp" and t == "-S":
            return danger("`scp -S` runs another program")
        if name == "zip" and (t in ("-TT",) or t.startswith(("--unzip-command", "-TT"))):
            return danger("`zip -TT` runs another program")
    return None


# procps ps: UNIX options (`-o FMT`, `-u USER`) and BSD ones (`o FMT`, `U USER`) that take a value.
_PS_UNIX_VAL = set("CGgoOpqstUuk")
_PS_BSD_VAL = set("oOpqtUk")
_PS_LONG_VAL = {"--format", "--sort", "--pid", "--ppid", "--user", "--group", "--cols"}
_PS_LONG_VAL |= {"--columns", "--lines", "--rows", "--sid", "--tty", "--Group", "--User"}


def ps_shows_environment(args: list[Word]) -> bool:
    """True when `ps args` prints process environments: the BSD `e` option anywhere in a BSD
    group (`ps aux e`, `ps -u root e`, `ps ewww`), or an `environ` column in any format.

    `-e` (a dash) is the UNIX "every process" option and prints no environment; a word with no
    dash is a BSD option group (or a PID list), wherever it stands.
    """
    texts = [a.text for a in args]
    if any("environ" in t.lower() for t in texts):
        return True  # `ps -o pid,environ`, `ps axo environ`, `--format=environ`
    i = 0
    while i < len(texts):
        t = texts[i]
        i += 1
        if t == "--" or t.startswith("--"):
            if t.split("=", 1)[0] in _PS_LONG_VAL and "=" not in t:
                i += 1
            continue
        if t.startswith("-"):
            for k, ch in enumerate(t[1:], start=1):
                if ch in _PS_UNIX_VAL:
                    i += 0 if t[k + 1 :] else 1
                    break
            continue
        if t.replace(",", "").isdigit():
            continue  # a PID list
        for k, ch in enumerate(t):
            if ch == "e" or DYN in ch:
                return True
            if ch in _PS_BSD_VAL:
                i += 0 if t[k + 1 :] else 1
                break
    return False
