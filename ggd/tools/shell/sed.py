"""A conservative reader of sed scripts: only printing and substitution commands are read-only.

sed can write files (`w`, `W`, `s///w`), run commands (`e`, `s///e`) and read other files (`r`,
`R`, which could be a credential). Anything this reader does not recognise is not read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ggd.tools.shell.lex import Word

_FLAGS = set("nErsuz")
_LONG = {"--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered"}
_LONG |= {"--null-data", "--zero-terminated", "--posix", "--debug", "--sandbox"}
_PLAIN = set("pPdDnNgGhHxz=lFq Q")
_LABELLED = set("btT:")
_TEXT = set("aic")


def _skip_regex(s: str, i: int, delim: str) -> int:
    """Index just past the closing delimiter of a regex or replacement starting at i."""
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == "\n":
            return -1
        if s[i] == delim:
            return i + 1
        i += 1
    return -1


def _address(s: str, i: int) -> int:
    """Skip an address (`5`, `$`, `/re/`, `\\%re%`, `1,5`, `0~3`, `addr!`); -1 if malformed."""
    for _ in range(2):
        while i < len(s) and (s[i].isdigit() or s[i] in "$~+"):
            i += 1
        if i < len(s) and s[i] == "/":
            i = _skip_regex(s, i + 1, "/")
            if i < 0:
                return -1
            while i < len(s) and s[i] in "IM":
                i += 1
        elif i + 1 < len(s) and s[i] == "\\":
            i = _skip_regex(s, i + 2, s[i + 1])
            if i < 0:
                return -1
        if i < len(s) and s[i] == ",":
            i += 1
            continue
        break
    while i < len(s) and s[i] in " !":
        i += 1
    return i


def sed_effects(script: str) -> list[tuple[str, str | None]]:
    """What a script does besides printing: ("write", file), ("run", command or None for the
    pattern space), ("read", file) or ("unknown", why). Empty when it only prints and edits."""
    s, i = script, 0
    out: list[tuple[str, str | None]] = []
    while i < len(s):
        c = s[i]
        if c in " \t\n;{}":
            i += 1
            continue
        if c == "#":
            nl = s.find("\n", i)
            i = len(s) if nl == -1 else nl + 1
            continue
        i = _address(s, i)
        if i < 0:
            return [*out, ("unknown", "a sed address this classifier cannot read")]
        if i >= len(s):
            return out
        c = s[i]
        if c in "{}":
            continue
        if c in _PLAIN:
            i += 1
            while i < len(s) and s[i].isdigit():
                i += 1
            continue
        if c in _LABELLED:
            while i < len(s) and s[i] not in ";\n":
                i += 1
            continue
        if c in _TEXT:
            nl = s.find("\n", i)
            i = len(s) if nl == -1 else nl + 1
            continue
        if c in "sy":
            past = _substitution(s, i, out)
            if isinstance(past, str):
                return [*out, ("unknown", past)]
            i = past
            continue
        if c in "wWrR" or c == "e":
            arg = _rest_of_line(s, i + 1)
            kind = {"w": "write", "W": "write", "r": "read", "R": "read", "e": "run"}[c]
            out.append((kind, arg if arg or c != "e" else None))
            i = _line_end(s, i)
            continue
        return [*out, ("unknown", f"sed command `{c}` is not known to be read-only")]
    return out


def _substitution(s: str, i: int, out: list[tuple[str, str | None]]) -> int | str:
    """Past the `s` or `y` command at i (what its flags do added to `out`), or why it cannot
    be read."""
    c = s[i]
    if i + 1 >= len(s) or s[i + 1] in "\\\n":
        return "a sed command this classifier cannot read"
    delim = s[i + 1]
    j = _skip_regex(s, i + 2, delim)
    j = _skip_regex(s, j, delim) if j > 0 else -1
    if j < 0:
        return "a sed command this classifier cannot read"
    i = j
    if c == "s":
        while i < len(s) and s[i] not in ";\n}":
            if s[i] == "e":
                out.append(("run", None))  # the edited line is run as a command
            elif s[i] == "w":
                out.append(("write", _rest_of_line(s, i + 1)))
                return _line_end(s, i)
            elif s[i] not in "gpiImM0123456789 ":
                return f"sed flag `{s[i]}` is not known"
            i += 1
    return i


def _rest_of_line(s: str, i: int) -> str:
    """The file name or command after a w/r/e command: the rest of the line, trimmed."""
    return s[i : _line_end(s, i)].strip()


def _line_end(s: str, i: int) -> int:
    nl = s.find("\n", i)
    return len(s) if nl == -1 else nl


@dataclass
class SedCall:
    """A sed command line: its scripts ("" for one read from a file), files and options."""

    scripts: list[str] = field(default_factory=list)
    files: list[Word] = field(default_factory=list)
    inplace: bool = False
    from_file: bool = False
    sandbox: bool = False
    unknown: str = ""  # the first option not known to be read-only


def sed_call(args: list[Word]) -> SedCall:
    """Read sed's arguments: -e/-f/--expression/--file scripts, else the first operand."""
    call = SedCall(sandbox=any(a.text == "--sandbox" for a in args))
    has_script = False
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "--":
            call.files += args[i + 1 :]
            break
        if t.startswith("--"):
            key, eq, val = t.partition("=")
            if key.startswith("--in-place"):
                call.inplace = True
            elif key in ("--expression", "--file"):
                if not eq and i + 1 < len(args):
                    i += 1
                    val = args[i].text
                call.scripts.append(val if key == "--expression" else "")
                call.from_file = call.from_file or key == "--file"
                has_script = True
            elif key == "--line-length":
                i += 0 if eq else 1
            elif key not in _LONG:
                call.unknown = call.unknown or key
        elif t.startswith("-") and len(t) > 1:
            for k, ch in enumerate(t[1:]):
                if ch == "i":
                    call.inplace = True
                    break
                if ch in "efl":
                    val = t[k + 2 :]
                    if not val and i + 1 < len(args):
                        i += 1
                        val = args[i].text
                    if ch != "l":
                        call.scripts.append(val if ch == "e" else "")
                        call.from_file = call.from_file or ch == "f"
                        has_script = True
                    break
                if ch not in _FLAGS:
                    call.unknown = call.unknown or f"-{ch}"
        else:
            call.files.append(args[i])
        i += 1
    if not has_script and call.files:
        call.scripts.append(call.files.pop(0).text)
    return call
