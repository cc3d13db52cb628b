"""Commands that run another command (`time -p X`, `timeout 5 X`, `xargs X`, `strace -o F X`).

The classifier looks through them to the wrapped command. An option this table does not know
could take a value or not; both readings are tried, so an unknown option cannot hide the command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ggd.tools.shell.lex import Word

_MAX_READINGS = 8


@dataclass(frozen=True)
class Wrapper:
    """How one wrapper's own options look, and what its option values mean."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    positional: int = 0  # words (a duration, a lock file, a cpu mask) before the command
    writes: frozenset[str] = frozenset()  # options whose value is a file it writes
    code: frozenset[str] = frozenset()  # options whose value is a shell command it runs
    opaque: bool = False  # the wrapper does more than run the command: never read-only
    numeric: bool = False  # `-10` is an option (nice)


def _w(flags: str = "", valued: str = "", positional: int = 0, **kw: object) -> Wrapper:
    return Wrapper(frozenset(flags.split()), frozenset(valued.split()), positional, **kw)  # type: ignore[arg-type]


WRAPPERS: dict[str, Wrapper] = {
    "time": _w("-p -v -a -q --verbose --append --quiet --portability", "-o -f --output --format",
               writes=frozenset({"-o", "--output"})),
    "nice": _w("", "-n --adjustment", numeric=True),
    "nohup": _w(),
    "setsid": _w("-c -f -w --ctty --fork --wait"),
    "builtin": _w(),
    "exec": _w("-c -l", "-a"),
    "command": _w("-p"),
    "stdbuf": _w("", "-i -o -e --input --output --error"),
    "ionice": _w("-t --ignore", "-c -n -p -P -u --class --classdata --pid --pgid --uid"),
    "timeout": _w("-v --verbose --foreground --preserve-status", "-s -k --signal --kill-after", 1),
    "taskset": _w("-a -c -p --all-tasks --cpu-list --pid", "", 1),
    "chrt": _w("-a -b -d -e -f -i -o -r -R -v -m -p --all-tasks --batch --deadline --fifo --idle "
               "--other --rr --reset-on-fork --verbose --max --pid", "-T -P -D --sched-runtime "
               "--sched-period --sched-deadline", 1),
    "prlimit": _w("--noheadings --raw --verbose", "-p --pid -o --output"),
    "unbuffer": _w("-p"),
    "busybox": _w(),
    "chronic": _w("-e -v"),
    "nocache": _w(),
    "catchsegv": _w(),
    "flock": _w("-s -x -e -n -u -o -F --shared --exclusive --nonblock --nb --unlock --close "
                "--no-fork --verbose", "-w -E --timeout --wait --conflict-exit-code", 1,
                code=frozenset({"-c", "--command"})),
    "xargs": _w("-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit "
                "--open-tty", "-n -I -P -d -L -a -E -s --max-args --replace --max-procs "
                "--delimiter --arg-file --max-lines --eof --max-chars --process-slot-var"),
    "watch": _w("-b -e -g -t -x -c -p -d --beep --errexit --chgexit --no-title --exec --color "
                "--precise --differences --no-wrap", "-n -q --interval --equexit"),
    "strace": _w("-f -ff -c -C -T -t -tt -ttt -r -v -x -xx -y -yy -q -qq -w -z -Z -k -n -i -d -D "
                 "-F -h -V", "-e -o -p -s -u -E -P -S -a -b -I -X -O -U", writes=frozenset({"-o"}),
                 opaque=True),
    "ltrace": _w("-f -c -C -i -r -S -t -tt -ttt -T -h -V -b", "-e -o -p -s -u -n -a -l -L -x -F",
                 writes=frozenset({"-o"}), opaque=True),
    "valgrind": _w("-q -v --quiet --verbose", "", opaque=True),
    "script": _w("-a -e -f -q -E --append --return --flush --quiet --force", "-c -t -T -B -I -O "
                 "--command --timing --log-out --log-in --log-io --echo", writes=frozenset(
                     {"-t", "-T", "-B", "-I", "-O", "--timing", "--log-out", "--log-io"}),
                 code=frozenset({"-c", "--command"}), opaque=True),
    "faketime": _w("-m -f", "-p", 1, opaque=True),
    "firejail": _w("--quiet --noprofile", "", opaque=True),
    "xvfb-run": _w("-a -l --auto-servernum --listen-tcp", "-n -s -e -f -p --server-num "
                   "--server-args --error-file --auth-file", opaque=True),
    "dbus-run-session": _w("", "--config-file --dbus-daemon", opaque=True),
    "proxychains": _w("-q", "-f", opaque=True),
    "proxychains4": _w("-q", "-f", opaque=True),
    "torsocks": _w("-q -i -d --quiet --isolate", "-u -p -a -P --user --pass --address --port",
                   opaque=True),
    "ssh-agent": _w("-c -s -d -D -k", "-a -E -t -P -O", opaque=True),
    "screen": _w("-d -m -D -R -r -q -x -A -U -L -dm -dmS -wipe -ls -list", "-S -c -e -h -p -T "
                 "-Logfile", opaque=True),
    "caffeinate": _w("-d -i -m -s -u", "-t -w"),
    "entr": _w("-a -c -cc -d -n -p -r -s -z", "", opaque=True),
}  # fmt: skip

# These run the command as someone else, somewhere else, or later, outside gg's process group
# and sandbox: what they run cannot be held to the workspace.
ESCAPES = {
    "sudo": "privilege escalation with `sudo`", "doas": "privilege escalation with `doas`",
    "pkexec": "privilege escalation with `pkexec`", "su": "privilege escalation with `su`",
    "run0": "privilege escalation with `run0`", "sudoedit": "privilege escalation with `sudoedit`",
    "gosu": "privilege escalation with `gosu`", "su-exec": "privilege escalation with `su-exec`",
    "runuser": "`runuser` runs a command as another user",
    "setpriv": "`setpriv` changes the privileges a command runs with",
    "capsh": "`capsh` changes the capabilities a command runs with",
    "sg": "`sg` runs a command with another group's rights",
    "newgrp": "`newgrp` starts a shell with another group's rights",
    "chroot": "`chroot` runs a command under another root",
    "nsenter": "`nsenter` runs a command in another process's namespaces",
    "unshare": "`unshare` runs a command in new namespaces (maybe as root there)",
    "systemd-run": "`systemd-run` starts a command outside this session and the sandbox",
    "systemd-nspawn": "`systemd-nspawn` runs a container", "machinectl": "`machinectl` enters a machine",
    "lxc-attach": "`lxc-attach` runs a command in a container",
    "lxc-execute": "`lxc-execute` runs a command in a container",
    "schroot": "`schroot` runs a command under another root",
    "at": "`at` schedules a command to run later, outside the sandbox",
    "batch": "`batch` schedules a command to run later, outside the sandbox",
    "daemonize": "`daemonize` detaches a command from gg's control",
    "start-stop-daemon": "`start-stop-daemon` starts a detached service",
}  # fmt: skip


@dataclass
class Reading:
    """One way of reading a wrapper's arguments: the wrapped command and option values."""

    rest: list[Word]
    values: dict[str, Word] = field(default_factory=dict)


def readings(name: str, args: list[Word]) -> list[Reading]:
    """Every plausible reading of `name args`; the first is the ordinary one."""
    return _read(WRAPPERS[name], args, 0, {}, 0)[:_MAX_READINGS]


def _read(
    spec: Wrapper, args: list[Word], i: int, vals: dict[str, Word], forks: int
) -> list[Reading]:
    alts: list[Reading] = []
    while i < len(args):
        t = args[i].text
        if t == "--":
            i += 1
            break
        if not t.startswith("-") or t == "-":
            break
        if spec.numeric and re.fullmatch(r"-[0-9]+", t):
            i += 1
            continue
        key, eq, val = t.partition("=") if t.startswith("--") else (t[:2], "", t[2:])
        if t.startswith("--") and eq:
            vals = {**vals, key: Word(val)}
            i += 1
        elif t in spec.flags or (
            not t.startswith("--") and all(f"-{c}" in spec.flags for c in t[1:])
        ):
            i += 1
        elif key in spec.valued or key in spec.code or key in spec.writes:
            if val and not t.startswith("--"):
                vals = {**vals, key: Word(val)}
                i += 1
            else:
                vals = {**vals, key: args[i + 1]} if i + 1 < len(args) else vals
                i += 2
        else:
            # Unknown: it may take the next word as its value; read it both ways.
            if forks < 3:
                alts += _read(spec, args, i + 2, vals, forks + 1)
            i += 1
    return [Reading(args[i + spec.positional :], vals), *alts]
