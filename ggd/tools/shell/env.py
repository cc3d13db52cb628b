"""Environment variables for the classifier: inert ones, ones that change what runs, secrets.

A leading assignment (`X=1 cmd`) hands X to the program; a plain one (`X=1; cmd`) changes X for
the rest of the shell and for children when X is already exported, which we cannot know. Only the
short inert list keeps a command read-only; names that make programs load or run other code
(PATH, LD_PRELOAD, GIT_SSH_COMMAND, BASH_ENV, ...) are dangerous.
"""

from __future__ import annotations

import re
from pathlib import Path

from ggd.tools.shell.scan import DYN
from ggd.tools.shell.verdict import Verdict, danger, normal, worst

# Changing these never makes a program run or load anything else.
INERT = {
    "LANG", "LANGUAGE", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM",
    "COLUMNS", "LINES", "TIME_STYLE", "LS_COLORS", "GREP_COLOR", "GREP_COLORS", "POSIXLY_CORRECT",
    "QUOTING_STYLE", "BLOCK_SIZE", "BLOCKSIZE", "DF_BLOCK_SIZE", "DU_BLOCK_SIZE", "LS_BLOCK_SIZE",
    "TABSIZE", "COLORTERM", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "GIT_PAGER_IN_USE",
}  # fmt: skip
# Pager variables are inert when they name a plain reader.
_PAGERS = {"PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "BAT_PAGER", "DELTA_PAGER"}
_PLAIN_PAGERS = {"", "cat", "less", "more", "less -R", "less -FRX", "less -FR", "less -R -F -X"}
# Exact names that make a program run or load other code.
EXEC_NAMES = {
    "PATH", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PS1", "PS2", "PS3",
    "PROMPT_COMMAND", "HOME", "ZDOTDIR", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME",
    "EDITOR", "VISUAL", "SHELL", "BROWSER", "TERMINAL", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
    "PYTHONINSPECT", "PYTHONEXECUTABLE", "PERL5LIB", "PERLLIB", "PERL5OPT", "PERL5DB", "RUBYOPT",
    "RUBYLIB", "NODE_OPTIONS", "NODE_PATH", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSKEYIN",
    "LESSSECURE", "LESS", "GCONV_PATH", "GLIBC_TUNABLES", "HOSTALIASES", "LOCPATH", "NLSPATH",
    "TERMINFO", "TERMINFO_DIRS", "CDPATH", "GLOBIGNORE", "HISTFILE", "INPUTRC", "MAIL", "MAILPATH",
    "FPATH", "SUDO_ASKPASS", "SSH_ASKPASS", "SSH_AUTH_SOCK", "RIPGREP_CONFIG_PATH", "GREP_OPTIONS",
    "JQ_LIBRARY_PATH", "TAR_OPTIONS", "GZIP", "XZ_OPT", "BZIP2", "ZSTD_CLEVEL", "MANOPT", "MANPATH",
    "GROFF_COMMAND_PREFIX", "TMUX", "PROMPT", "RPROMPT", "PROMPT_DIRTRIM", "EXECIGNORE",
    "BASH_XTRACEFD", "BASH_LOADABLES_PATH", "BASH_COMPAT", "COMP_WORDBREAKS", "FIGNORE",
}  # fmt: skip
# zsh (a user's $SHELL may be zsh) ties these lower-case arrays to PATH and friends.
_ZSH_TIED = {"path", "fpath", "cdpath", "manpath", "module_path", "mailpath", "fignore"}
_EXEC_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_", "LESS", "PYTHON", "PERL", "RUBY", "NODE_")
_EXEC_SUFFIXES = ("_COMMAND", "_PROGRAM", "_PAGER", "_EDITOR", "_SHELL", "_ASKPASS", "_HOOK",
                  "_CONFIG", "_CONFIG_PATH", "_RC", "_PRELOAD", "_PROXY_COMMAND", "_WRAPPER")  # fmt: skip
# Variables whose value is not a secret: reading them keeps a command read-only.
NOT_SECRET = {
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "LANG", "LANGUAGE", "TERM", "TZ",
    "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "EDITOR", "VISUAL", "PAGER", "TMPDIR", "SHLVL",
    "COLUMNS", "LINES", "DISPLAY", "WAYLAND_DISPLAY", "VIRTUAL_ENV", "CONDA_DEFAULT_ENV",
    "CONDA_PREFIX", "PYTHONPATH", "GOPATH", "GOROOT", "JAVA_HOME", "NODE_ENV", "CI", "UID",
    "EUID", "PPID", "BASH_VERSION", "BASH", "RANDOM", "SECONDS", "LINENO", "PIPESTATUS", "IFS",
    "OPTIND", "OPTARG", "REPLY", "HISTSIZE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
    "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_SESSION_TYPE", "XDG_CURRENT_DESKTOP", "MANPATH",
    "LD_LIBRARY_PATH", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "PYENV_ROOT", "GEM_HOME",
}  # fmt: skip
_LC_RE = re.compile(r"^LC_[A-Z]+$")
_TEMP_DIRS = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), Path("/run/user"))
_SPECIAL_PARAMS = set("0123456789@*#?$!-_")


def is_exec_var(name: str) -> bool:
    """True when setting name can make a program run or load code chosen by its value."""
    if name in EXEC_NAMES or name in _ZSH_TIED:
        return True
    return name.startswith(_EXEC_PREFIXES) or name.endswith(_EXEC_SUFFIXES)


def is_inert(name: str, value: str) -> bool:
    """True when `name=value` handed to a program cannot change what it runs or writes."""
    if name in _PAGERS:
        return value.strip() in _PLAIN_PAGERS
    if name in INERT or _LC_RE.match(name):
        return "/" not in value and DYN not in value  # a locale path loads files from there
    return False


def is_secret_var(name: str) -> bool:
    """True when printing `$name` might show a secret (API keys live in upper-case variables)."""
    if name in _SPECIAL_PARAMS or name in NOT_SECRET or _LC_RE.match(name):
        return False
    if name.startswith("!"):
        return True  # `${!X}`: whatever variable X names
    return name.upper() == name or name in ("?",)


def _path_risk(value: str, workspace: Path) -> Verdict:
    """PATH=...: dangerous when an entry is relative, empty, unknown or inside the workspace."""
    for entry in value.split(":"):
        if entry.replace(DYN, "") == "" and entry:
            continue  # `$PATH` itself
        if not entry or not entry.startswith("/") or DYN in entry:
            return danger(f"`PATH` entry `{entry or '(empty)'}` makes commands run from anywhere")
        p = Path(entry)
        if p == workspace or p.is_relative_to(workspace):
            return danger("`PATH` puts workspace programs before system ones")
        if not _trusted_dir(p):
            return danger(f"`PATH` entry `{entry}` is a folder others (or this command) can fill")
    return normal("`PATH` changes which programs run")


def _trusted_dir(p: Path) -> bool:
    """An existing folder outside temp space that only its owner can write."""
    if any(p == t or p.is_relative_to(t) for t in _TEMP_DIRS):
        return False
    try:
        mode = p.stat().st_mode
    except OSError:
        return False  # missing: whoever creates it decides what runs
    return not mode & 0o022


def prefix_risk(name: str, value: str, workspace: Path) -> Verdict | None:
    """Risk of handing `name=value` to one command; None when it is inert."""
    if is_inert(name, value) or name == "IFS":
        return None  # `IFS= read -r`: bash never imports IFS from the environment
    if name == "PATH":
        return _path_risk(value, workspace)
    if is_exec_var(name) or name in _PAGERS:
        return danger(f"`{name}=` can make the command run or load another program")
    return normal(f"`{name}=` is not known to be harmless to the command it is given to")


def plain_risk(name: str, value: str, workspace: Path) -> Verdict | None:
    """Risk of a plain assignment (`name=value` on its own or via export/declare); None if none."""
    if is_inert(name, value):
        return None
    if name == "PATH":
        return _path_risk(value, workspace)
    if name == "IFS":
        return normal("`IFS=` changes how later expansions split into words")
    if is_exec_var(name) or name in _PAGERS:
        return danger(f"`{name}=` can make later commands run or load another program")
    if name.upper() == name:
        # Upper-case names are the environment's; one already exported reaches every child.
        return normal(f"`{name}=` may change the environment of later commands")
    return None


def assignments_risk(pairs: list[tuple[str, str]], workspace: Path, plain: bool) -> Verdict:
    """The worst risk of several assignments."""
    rate = plain_risk if plain else prefix_risk
    verdicts = [v for n, val in pairs if (v := rate(n, val, workspace)) is not None]
    return worst(verdicts)
