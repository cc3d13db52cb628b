"""Per-command classifier rules: the read-only allow-list, destructive tools, path-writing commands."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ggd.tools.git_rules import rule_git
from ggd.tools.shell_lex import Word
from ggd.tools.shell_paths import ShellState, locate, realpath
from ggd.tools.shell_readonly import SPECS, option_problem
from ggd.tools.shell_scan import DYN
from ggd.tools.shell_sed import sed_script_problem
from ggd.tools.verdict import Verdict, danger, normal, ro, worst

if TYPE_CHECKING:
    from ggd.tools.classifier import Analyzer

Rule = Callable[["Analyzer", str, list[Word], ShellState, int], Verdict]

# Programs that can be read-only; shell_readonly.SPECS says with which options.
READ_ONLY = set(SPECS)
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
    "kexec": "boots another kernel", "swapon": "changes swap", "losetup": "attaches loop devices",
    "dmsetup": "changes device-mapper tables", "tune2fs": "changes a filesystem",
    "debugfs": "edits a filesystem", "e2fsck": "repairs a filesystem", "fsck": "repairs a filesystem",
    "badblocks": "tests (and may overwrite) a disk", "hdparm": "changes disk settings",
    "nvme": "manages NVMe devices", "flashrom": "rewrites firmware", "efibootmgr": "changes boot entries",
    "grub-install": "installs a boot loader", "update-grub": "changes the boot loader",
    "mknod": "creates a device node", "setcap": "gives a program capabilities",
    "ufw": "changes the firewall",
    "ip6tables": "changes the firewall", "firewall-cmd": "changes the firewall",
    "groupadd": "changes system groups", "groupmod": "changes system groups",
    "vipw": "edits the password file", "pvcreate": "initialises a physical volume",
    "vgcreate": "creates a volume group", "lvcreate": "creates a logical volume",
    "mdadm": "manages RAID arrays", "zfs": "manages ZFS datasets", "btrfs": "manages btrfs filesystems",
    "pivot_root": "changes the root filesystem", "switch_root": "changes the root filesystem",
}  # fmt: skip
_POWER = {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep"}
_POWER |= {"rescue", "emergency", "default", "isolate", "soft-reboot", "suspend-then-hibernate"}
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
    options = {"-depth", "-maxdepth", "-mindepth", "-xdev", "-mount", "-follow", "-print"}
    options |= {"-print0", "-noleaf", "-daystart", "-ignore_readdir_race", "-nowarn", "-warn"}
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
            prev = expr[j - 1].text if j else ""
            if t not in _FIND_SAFE and not re.match(r"-[0-9]", t) and prev not in _FIND_VALUED:
                verdicts.append(normal(f"`find {t}` is not known to be read-only"))
        j += 1
    return worst(verdicts) if verdicts else ro("find")


_FIND_VALUED = {"-perm", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin"}
_FIND_VALUED |= {"-links", "-used", "-inum", "-uid", "-gid", "-name", "-iname", "-path", "-regex"}
_FIND_SAFE = {
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-regextype", "-type", "-xtype", "-size", "-empty", "-mtime", "-mmin", "-atime", "-amin",
    "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-newermt", "-newerct", "-newerat",
    "-neweraa", "-newermm", "-newercc", "-perm", "-user", "-group", "-uid", "-gid", "-nouser",
    "-nogroup", "-readable", "-writable", "-executable", "-links", "-inum", "-samefile",
    "-lname", "-ilname", "-prune", "-printf", "-ls", "-quit", "-true", "-false", "-not", "-and",
    "-or", "-a", "-o", "-fstype", "-used", "-context", "-print", "-print0",
}  # fmt: skip


_SED_FLAGS = set("nErsuz")
_SED_LONG = {"--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered"}
_SED_LONG |= {"--null-data", "--zero-terminated", "--posix", "--debug", "--sandbox"}


def rule_sed(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """sed: read-only when every script only prints, deletes and substitutes (shell_sed)."""
    inplace, has_script, from_file, unknown = False, False, False, ""
    scripts: list[str] = []
    pos: list[Word] = []
    sandbox = any(a.text == "--sandbox" for a in args)
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "--":
            pos += args[i + 1 :]
            break
        if t.startswith("--"):
            key, eq, val = t.partition("=")
            if key.startswith("--in-place"):
                inplace = True
            elif key in ("--expression", "--file"):
                if not eq and i + 1 < len(args):
                    i += 1
                    val = args[i].text
                scripts.append(val if key == "--expression" else "")
                from_file = from_file or key == "--file"
                has_script = True
            elif key == "--line-length":
                i += 0 if eq else 1
            elif key not in _SED_LONG:
                unknown = unknown or key
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
                        from_file = from_file or ch == "f"
                        has_script = True
                    break
                if ch not in _SED_FLAGS:
                    unknown = unknown or f"-{ch}"
        else:
            pos.append(args[i])
        i += 1
    if not has_script and pos:
        scripts.append(pos.pop(0).text)
    if inplace:
        verdicts = [an.write_target(w, st, "sed -i") for w in pos]
        return worst([*verdicts, normal("sed -i edits files in place")])
    if unknown:
        return normal(f"`sed` option `{unknown}` is not known to be read-only")
    if from_file and not sandbox:
        return normal("the sed script comes from a file, which may write or run commands")
    for script in scripts:
        problem = None if sandbox else sed_script_problem(script)
        if problem is not None:
            return normal(problem)
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
        return _tar(an, args, st, flags, values, verdicts)
    if name == "sort":
        return worst(verdicts) if verdicts else ro("sort")
    if name in ("curl", "wget"):
        verdicts.append(normal(f"`{name}` uses the network"))
    return worst([*verdicts, normal(f"`{name}` writes files")])


_TAR_EXEC = ("--checkpoint-action", "--to-command", "--use-compress-program", "--info-script")
_TAR_EXEC += ("--new-volume-script", "--rsh-command", "--rmt-command", "--index-file")


def _tar(
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
        for k, a in enumerate(args[:-1]):
            if a.text in ("-f", "--file"):
                archive = args[k + 1]
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
    if name in _NET_EXEC:
        return _net_exec(an, name, args, st, depth)
    rule = _RULES.get(name)
    if rule is not None:
        verdict = rule(an, name, args, st, depth)
    elif name in READ_ONLY:
        verdict = ro(name)
    else:
        return normal(f"runs `{name}`")
    if verdict.risk == "read_only" and name in SPECS:
        problem = option_problem(name, args)
        if problem is not None:
            return normal(problem)
    return verdict


# Options that make network tools run a local program.
_NET_EXEC = {"ssh", "scp", "sftp", "rsync", "zip", "git-upload-pack"}
_NET_EXEC_RE = re.compile(
    r"(?i)^(?:-o)?(?:proxycommand|localcommand|permitlocalcommand|knownhostscommand"
    r"|match\s+exec)|^--rsh|^-e$|^-S$|^-TT|^--unzip-command|^--rsync-path"
)


def _net_exec(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
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
    rule = _RULES.get(name)
    if rule is not None:
        return rule(an, name, args, st, depth)
    return normal(f"runs `{name}`")
