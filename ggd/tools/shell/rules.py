"""Per-command classifier rules: the read-only allow-list, destructive tools, path-writing commands."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ggd.tools.shell.git_rules import rule_git
from ggd.tools.shell.lex import Word
from ggd.tools.shell.paths import ShellState, locate, realpath
from ggd.tools.shell.readonly import SPECS, option_problem
from ggd.tools.shell.scan import DYN
from ggd.tools.shell.sed import sed_call, sed_effects
from ggd.tools.shell.system import (
    NET_EXEC,
    exec_options,
    net_exec,
    rule_misc,
    rule_pkill,
    short_flag,
    split_args,
    tar_rule,
    write_options,
)
from ggd.tools.shell.verdict import Verdict, danger, normal, ro, worst

if TYPE_CHECKING:
    from ggd.tools.shell.classifier import Analyzer

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
_CHMOD_MODE_RE = re.compile(r"^([ugoa]*[-+=][rwxXstugo]*,?)+$|^[0-7]{3,4}$")


def rule_rm(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """rm/unlink/rmdir/shred: recursive removal of roots, home, workspace or outside paths."""
    flags, pos, _ = split_args(args, set())
    recursive = name == "rm" and (
        short_flag(flags, "r", "--recursive") or short_flag(flags, "R", "-R")
    )
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


def rule_sed(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """sed: read-only when every script only prints, deletes and substitutes (shell_sed)."""
    call = sed_call(args)
    if call.inplace:
        writes = [an.write_target(w, st, "sed -i") for w in call.files]
        return worst([*writes, normal("sed -i edits files in place")])
    if call.unknown:
        return normal(f"`sed` option `{call.unknown}` is not known to be read-only")
    if call.from_file and not call.sandbox:
        return normal("the sed script comes from a file, which may write or run commands")
    if call.sandbox:
        return ro("sed")  # --sandbox rejects w, r and e
    verdicts: list[Verdict] = []
    for kind, arg in [e for script in call.scripts for e in sed_effects(script)]:
        if kind == "write":
            verdicts += [an.write_target(Word(arg or ""), st, "sed w"), normal("sed writes a file")]
        elif kind == "run" and arg is None:
            verdicts.append(danger("sed `e` runs the text it edits as a command"))
        elif kind == "run":
            inner = an.analyze(arg or "", st.copy(), depth + 1)
            verdicts += [inner, normal("sed `e` runs a command")]
        elif kind == "read":
            verdicts.append(normal(f"sed `r` reads `{arg}` into its output"))
        else:
            verdicts.append(normal(arg or "sed script not understood"))
    return worst(verdicts) if verdicts else ro("sed")


def rule_copy(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """cp/mv/install/ln/rsync: the destination must be inside the workspace; ln is remembered."""
    valued = {"-S", "--suffix", "-t", "-m", "-o", "-g", "-e", "--rsh", "-f", "--filter", "-T"}
    valued |= {"--exclude", "--include", "--exclude-from", "--include-from", "--files-from"}
    valued |= {"--log-file", "--temp-dir", "--partial-dir", "--backup-dir", "-B", "--port"}
    if name in ("cp", "mv", "ln", "install"):
        valued -= {"-T", "-f", "-e"}
    flags, pos, values = split_args(args, valued)
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
        no_deref = short_flag(flags, "T", "--no-target-directory") or short_flag(flags, "n", "-n")
        for src in sources:
            if dest is None or src.dynamic:
                continue
            at = dest / src.text.rstrip("/").rsplit("/", 1)[-1] if dest.is_dir() else dest
            st.links[at if not no_deref else dest] = src.text
    return worst(verdicts)


def rule_chmod(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """chmod/chown/chgrp: recursive outside the workspace (or on /, ~) is dangerous."""
    mode_in_flags = name == "chmod" and any(_CHMOD_MODE_RE.match(a.text) for a in args[:1])
    flags, pos, _ = split_args([a for a in args if not (mode_in_flags and a is args[0])], set())
    recursive = short_flag(flags, "R", "--recursive")
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
    _, pos, _ = split_args(args, valued.get(name, set()))
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
    flags, _, values = split_args(args, opts)
    verdicts = [an.write_target(w, st, f"{name} {k}") for k, w in values.items() if k in opts]
    if name == "tar":
        return tar_rule(an, args, st, flags, values, verdicts)
    if name == "sort":
        return worst(verdicts) if verdicts else ro("sort")
    if name in ("curl", "wget"):
        verdicts.append(normal(f"`{name}` uses the network"))
    return worst([*verdicts, normal(f"`{name}` writes files")])


def rule_cd(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """cd/pushd/popd change where later relative paths point."""
    pos = [a for a in args if not a.text.startswith("-") or a.text == "-"]
    if name == "popd":
        st.cwd = None
    elif not pos:
        st.cwd = st.home
    elif pos[0].text == "-" or pos[0].dynamic or pos[0].glob:
        st.cwd = None  # `cd /pro?/self`: the folder is only known once the glob expands
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
    "pkill": rule_pkill, "killall": rule_pkill, "loginctl": rule_misc, "init": rule_misc, "telinit": rule_misc, "date": rule_misc,
    "crontab": rule_misc, "sysctl": rule_misc, "timedatectl": rule_misc, "dmesg": rule_misc,
    "hostname": rule_misc, "cd": rule_cd, "pushd": rule_cd, "popd": rule_cd,
}  # fmt: skip


def dispatch(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """Classify command `name` with its args."""
    if name.startswith(("mkfs", "mkfs.")) or name in ALWAYS_DANGEROUS:
        return danger(f"`{name}` {ALWAYS_DANGEROUS.get(name, 'formats a filesystem')}")
    if name in NET_EXEC:
        ran = net_exec(name, args)
        if ran is not None:
            return ran
    rule = _RULES.get(name)
    if rule is not None:
        verdict = rule(an, name, args, st, depth)
    elif name in READ_ONLY:
        verdict = ro(name)
    else:
        return normal(f"runs `{name}`")
    for opt, value in exec_options(name, args):
        # `rg --pre CMD`, `sort --compress-program=CMD`: CMD runs with a file as its argument.
        inner = an.command([Word(value.text), Word(DYN, dynamic=True)], st, depth + 1)
        return worst([inner, normal(f"`{name} {opt}` runs another program")])
    written = [w for _, w in write_options(name, args)]
    if written:
        return worst([*(an.write_target(w, st, f"`{name}` output") for w in written),
                      normal(f"`{name}` writes a file")])  # fmt: skip
    if verdict.risk == "read_only" and name in SPECS:
        problem = option_problem(name, args)
        if problem is not None:
            return normal(problem)
    return verdict
