"""Per-command classifier rules: the read-only allow-list, destructive tools, path-writing commands."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ggd.tools.git_rules import rule_git
from ggd.tools.shell_lex import Word
from ggd.tools.shell_paths import ShellState, locate, realpath
from ggd.tools.shell_scan import DYN
from ggd.tools.verdict import Verdict, danger, normal, ro, worst

if TYPE_CHECKING:
    from ggd.tools.classifier import Analyzer

Rule = Callable[["Analyzer", str, list[Word], ShellState, int], Verdict]

READ_ONLY = {
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack", "pwd", "echo",
    "printf", "which", "whereis", "type", "stat", "file", "du", "df", "ps", "pgrep", "printenv",
    "cut", "tr", "true", "false", "test", "[", "basename", "dirname", "realpath", "readlink", "id",
    "whoami", "groups", "uname", "tree", "diff", "cmp", "comm", "jq", "md5sum", "sha1sum",
    "sha256sum", "sha512sum", "cksum", "b2sum", "od", "hexdump", "strings", "nl", "column", "fold",
    "expand", "unexpand", "rev", "tac", "seq", "sleep", "locale", "nproc", "free", "uptime",
    "lsblk", "lscpu", "less", "more", "zcat", "bzcat", "xzcat", "zgrep", "lsattr", "getfacl",
    "base64", "wait", "jobs", "export", "unset", "set", "shopt", "declare", "typeset", "local",
    "readonly", "read", "mapfile", "readarray", "history", "hash", "users", "who", "w", "man", "tput", "getconf", "arch", "tty",
    ":", "exit", "return", "break", "continue", "shift", "nm", "readelf", "objdump", "numfmt",
    "paste", "join", "look", "fmt", "pr", "yes", "vmstat", "iostat", "lsmod", "lsusb", "lspci",
    "sum", "tsort", "pathchk", "expr", "factor", "cal", "ncal", "logname", "mountpoint",
}  # fmt: skip
ALWAYS_DANGEROUS = {
    "mkfs": "formats a filesystem", "mke2fs": "formats a filesystem",
    "mkswap": "formats a swap area", "mkdosfs": "formats a filesystem",
    "fdisk": "edits a partition table", "sfdisk": "edits a partition table",
    "cfdisk": "edits a partition table", "gdisk": "edits a partition table",
    "sgdisk": "edits a partition table", "parted": "edits a partition table",
    "wipefs": "wipes filesystem signatures", "blkdiscard": "discards a block device",
    "shutdown": "powers the machine off", "reboot": "reboots the machine",
    "poweroff": "powers the machine off", "halt": "halts the machine",
    "hwclock": "changes the hardware clock", "killall5": "kills every process",
    "swapoff": "disables swap", "mount": "mounts a filesystem", "umount": "unmounts a filesystem",
    "insmod": "loads a kernel module", "rmmod": "unloads a kernel module",
    "modprobe": "loads a kernel module", "useradd": "changes system users",
    "userdel": "changes system users", "usermod": "changes system users",
    "passwd": "changes a password", "chpasswd": "changes passwords", "visudo": "edits sudoers",
    "groupdel": "changes system groups", "iptables": "changes the firewall",
    "nft": "changes the firewall", "lvremove": "removes a logical volume",
    "vgremove": "removes a volume group", "pvremove": "removes a physical volume",
    "cryptsetup": "changes disk encryption", "zpool": "manages storage pools",
}  # fmt: skip
_POWER = {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep"}
_POWER |= {"rescue", "emergency", "default", "isolate", "soft-reboot", "suspend-then-hibernate"}
_SED_EXEC_RE = re.compile(r"(?:^|[\s;{}/0-9$!,gpIiMm])[wWe](?:\s|$|;)")
_CHMOD_MODE_RE = re.compile(r"^([ugoa]*[-+=][rwxXstugo]*,?)+$|^[0-7]{3,4}$")


def _split(args: list[Word], valued: set[str]) -> tuple[list[str], list[Word], dict[str, Word]]:
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


def _short(flags: list[str], letter: str, long: str) -> bool:
    return any(f == long or (not f.startswith("--") and letter in f[1:]) for f in flags)


def rule_rm(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """rm/unlink/rmdir/shred: recursive removal of roots, home, workspace or outside paths."""
    flags, pos, _ = _split(args, set())
    recursive = name == "rm" and (_short(flags, "r", "--recursive") or _short(flags, "R", "-R"))
    what = f"{name} -r" if recursive else name
    verdicts = [an.remove_target(w, st, what, recursive) for w in pos]
    return worst(verdicts) if verdicts else normal(f"`{name}` with no target")


def rule_find(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """find: read-only unless -exec/-delete/-fprint; their targets are judged from the roots."""
    i = 0
    while i < len(args) and args[i].text in ("-L", "-H", "-P"):
        i += 1
    roots = []
    while i < len(args) and not args[i].text.startswith("-") and args[i].text not in ("(", "!"):
        roots.append(args[i])
        i += 1
    roots = roots or [Word(".")]
    expr = args[i:]
    options = {
        "-depth",
        "-maxdepth",
        "-mindepth",
        "-xdev",
        "-mount",
        "-follow",
        "-print",
        "-print0",
    }
    filtered = False
    verdicts: list[Verdict] = []
    j = 0
    while j < len(expr):
        t = expr[j].text
        if t in ("-exec", "-execdir", "-ok", "-okdir"):
            k = j + 1
            while k < len(expr) and expr[k].text not in (";", "+"):
                k += 1
            for root in roots:
                item = root.text if not filtered else root.text.rstrip("/") + "/x" + DYN
                sub = [Word(w.text.replace("{}", item), dynamic=w.dynamic) for w in expr[j + 1 : k]]
                if sub:
                    verdicts.append(an.command(sub, st, depth + 1))
            verdicts.append(normal(f"find {t} runs a command"))
            j = k + 1
            continue
        if t == "-delete":
            verdicts += [an.remove_target(r, st, "find -delete", not filtered) for r in roots]
        elif t in ("-fprint", "-fprint0", "-fls", "-fprintf") and j + 1 < len(expr):
            verdicts.append(an.write_target(expr[j + 1], st, f"find {t}"))
        elif t.startswith("-") and t not in options:
            filtered = True
        j += 1
    return worst(verdicts) if verdicts else ro("find")


def rule_sed(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """sed: read-only unless -i or a script command that writes (w) or executes (e)."""
    inplace, has_script = False, False
    scripts: list[str] = []
    pos: list[Word] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t.startswith("--"):
            inplace = inplace or t.startswith("--in-place")
            if t in ("--expression", "--file") and i + 1 < len(args):
                scripts.append(args[i + 1].text if t == "--expression" else "")
                has_script, i = True, i + 1
            elif t.startswith(("--expression=", "--file=")):
                scripts.append(t.split("=", 1)[1] if t.startswith("--e") else "")
                has_script = True
        elif t.startswith("-") and len(t) > 1:
            for k, ch in enumerate(t[1:]):
                if ch == "i":
                    inplace = True
                    break
                if ch in "efl":
                    val = t[k + 2 :]
                    if not val and i + 1 < len(args):
                        i += 1
                        val = args[i].text
                    if ch != "l":
                        scripts.append(val if ch == "e" else "")
                        has_script = True
                    break
        else:
            pos.append(args[i])
        i += 1
    if not has_script and pos:
        scripts.append(pos.pop(0).text)
    if inplace:
        verdicts = [an.write_target(w, st, "sed -i") for w in pos]
        return worst([*verdicts, normal("sed -i edits files in place")])
    if any(_SED_EXEC_RE.search(s) for s in scripts):
        return normal("sed script writes files or runs commands")
    return ro("sed")


def rule_copy(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """cp/mv/install/ln/rsync: the destination must be inside the workspace; ln is remembered."""
    valued = {"-S", "--suffix", "-t", "-m", "-o", "-g", "-e", "--rsh", "-f", "--filter", "-T"}
    valued |= {"--exclude", "--include", "--exclude-from", "--include-from", "--files-from"}
    valued |= {"--log-file", "--temp-dir", "--partial-dir", "--backup-dir", "-B", "--port"}
    if name in ("cp", "mv", "ln", "install"):
        valued -= {"-T", "-f", "-e"}
    flags, pos, values = _split(args, valued)
    target = values.get("-t") or values.get("--target-directory")
    sources = pos
    if target is None and (len(pos) >= 2 or (name == "ln" and pos)):
        target, sources = (pos[-1], pos[:-1]) if len(pos) >= 2 else (Word("."), pos)
    verdicts: list[Verdict] = [normal(f"`{name}` writes files")]
    if name == "rsync" and target is not None and re.match(r"^[^/]*:", target.text):
        return normal("rsync to a remote host")
    if target is not None:
        verdicts.append(an.write_target(target, st, name))
        if name == "rsync" and any(f.startswith("--delete") for f in flags):
            verdicts.append(an.remove_target(target, st, "rsync --delete", True))
    if name == "mv":
        verdicts += [an.remove_target(w, st, "mv", False) for w in sources]
    if name == "ln" and target is not None and not target.dynamic:
        dest = realpath(target.text, st)
        no_deref = _short(flags, "T", "--no-target-directory") or _short(flags, "n", "-n")
        for src in sources:
            if dest is None or src.dynamic:
                continue
            at = dest / src.text.rstrip("/").rsplit("/", 1)[-1] if dest.is_dir() else dest
            st.links[at if not no_deref else dest] = src.text
    return worst(verdicts)


def rule_chmod(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """chmod/chown/chgrp: recursive outside the workspace (or on /, ~) is dangerous."""
    mode_in_flags = name == "chmod" and any(_CHMOD_MODE_RE.match(a.text) for a in args[:1])
    flags, pos, _ = _split([a for a in args if not (mode_in_flags and a is args[0])], set())
    recursive = _short(flags, "R", "--recursive")
    if not any(f.startswith("--reference") for f in flags) and not mode_in_flags:
        pos = pos[1:]
    verdicts = [normal(f"`{name}` changes file attributes")]
    for w in pos:
        for alt in w.alternatives():
            loc = locate(alt, w.glob, st)
            bad = {"root", "home", "outside", "device"} | ({"unknown"} if recursive else set())
            if loc.kind in bad:
                verdicts.append(danger(f"{name}{' -R' if recursive else ''} of {loc.label()}"))
    return worst(verdicts)


def rule_writes(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """Commands whose positional args are files they write (touch, mkdir, tee, truncate...)."""
    valued = {"touch": {"-d", "-t", "-r"}, "mkdir": {"-m"}, "truncate": {"-s", "-r"}}
    _, pos, _ = _split(args, valued.get(name, set()))
    if name in ("uniq", "xxd"):
        pos = pos[1:2] if len(pos) >= 2 else []
    if not pos and name in ("tee", "uniq", "xxd"):
        return ro(name)
    verdicts = [an.write_target(w, st, name) for w in pos]
    return worst([*verdicts, normal(f"`{name}` writes files")])


def rule_output_opts(
    an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int
) -> Verdict:
    """sort -o, curl -o, wget -O, tar -C, unzip -d: judge the file or folder they write."""
    opts = {
        "sort": {"-o", "--output"},
        "curl": {"-o", "--output", "--output-dir", "-K", "--config"},
        "wget": {"-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file"},
        "tar": {"-C", "--directory"},
        "unzip": {"-d"},
    }[name]
    flags, _, values = _split(args, opts)
    verdicts = [an.write_target(w, st, f"{name} {k}") for k, w in values.items() if k in opts]
    if name == "tar":
        # -C only matters when extracting (`-x`, `xzf`, `--extract`, `--get`).
        first = args[0].text if args else ""
        short = [f for f in flags if not f.startswith("--")]
        if not first.startswith("-"):
            short.append(first)
        if not any("x" in f for f in short) and not {"--extract", "--get"} & set(flags):
            verdicts = []
    if name == "sort":
        return worst(verdicts) if verdicts else ro("sort")
    if name in ("curl", "wget"):
        verdicts.append(normal(f"`{name}` uses the network"))
    return worst([*verdicts, normal(f"`{name}` writes files")])


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
        _, pos, _ = _split(args, {"-d", "--date", "-r", "--reference", "-f", "--file"})
        if any(t in ("-s",) or t.startswith("--set") for t in texts) or any(
            not w.text.startswith("+") for w in pos
        ):
            return danger("`date` sets the system clock")
        return ro("date")
    if name == "crontab":
        if any(t.startswith("-") and not t.startswith("--") and "r" in t for t in texts):
            return danger("`crontab -r` removes every cron job")
        return ro("crontab -l") if texts == ["-l"] else normal("`crontab` changes cron jobs")
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


def rule_cd(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """cd/pushd/popd change where later relative paths point."""
    pos = [a for a in args if not a.text.startswith("-") or a.text == "-"]
    if name == "popd":
        st.cwd = None
    elif not pos:
        st.cwd = st.home
    elif pos[0].text == "-" or pos[0].dynamic:
        st.cwd = None
    else:
        st.cwd = realpath(pos[0].text, st)
    return ro(name)


_RULES: dict[str, Rule] = {
    "rm": rule_rm, "unlink": rule_rm, "rmdir": rule_rm, "shred": rule_rm, "find": rule_find,
    "sed": rule_sed, "git": rule_git, "cp": rule_copy, "mv": rule_copy, "install": rule_copy,
    "ln": rule_copy, "rsync": rule_copy, "chmod": rule_chmod, "chown": rule_chmod,
    "chgrp": rule_chmod, "touch": rule_writes, "mkdir": rule_writes, "truncate": rule_writes,
    "tee": rule_writes, "uniq": rule_writes, "xxd": rule_writes, "sort": rule_output_opts,
    "curl": rule_output_opts, "wget": rule_output_opts, "tar": rule_output_opts,
    "unzip": rule_output_opts, "dd": rule_misc, "kill": rule_misc, "systemctl": rule_misc,
    "loginctl": rule_misc, "init": rule_misc, "telinit": rule_misc, "date": rule_misc,
    "crontab": rule_misc, "sysctl": rule_misc, "timedatectl": rule_misc, "dmesg": rule_misc,
    "hostname": rule_misc, "cd": rule_cd, "pushd": rule_cd, "popd": rule_cd,
}  # fmt: skip


def dispatch(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """Classify command `name` with its args."""
    if name.startswith(("mkfs", "mkfs.")) or name in ALWAYS_DANGEROUS:
        return danger(f"`{name}` {ALWAYS_DANGEROUS.get(name, 'formats a filesystem')}")
    rule = _RULES.get(name)
    if rule is not None:
        return rule(an, name, args, st, depth)
    if name in READ_ONLY:
        return ro(name)
    return normal(f"runs `{name}`")
