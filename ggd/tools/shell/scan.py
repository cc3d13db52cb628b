"""Quote-aware scanning helpers for the shell lexer: brackets, quotes, substitutions, braces."""

from __future__ import annotations

import re

# Stands in for an expansion whose value is unknown before the command runs ($X, $(...)).
DYN = "\x00"

_ANSI_C = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b"}


def expand_braces(text: str, limit: int = 64) -> list[str]:
    """Expand `{a,b}` groups (bash brace expansion), capped at `limit` results."""
    start = text.find("{")
    while start != -1:
        depth, j = 0, start
        comma = False
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            elif text[j] == "," and depth == 1:
                comma = True
            j += 1
        seq = _SEQ_RE.match(text[start + 1 : j]) if j < len(text) and not comma else None
        if seq is not None:
            items: list[str] = []
            for item in _sequence(seq):
                items += [text[:start] + t for t in expand_braces(item + text[j + 1 :], limit)]
                if len(items) >= limit:
                    return items[:limit]
            return items
        if j < len(text) and comma:
            inner = text[start + 1 : j]
            parts, depth, last = [], 0, 0
            for k, ch in enumerate(inner):
                depth += ch == "{"
                depth -= ch == "}"
                if ch == "," and depth == 0:
                    parts.append(inner[last:k])
                    last = k + 1
            parts.append(inner[last:])
            out: list[str] = []
            for part in parts:
                for tail in expand_braces(part + text[j + 1 :], limit):
                    out.append(text[:start] + tail)
                    if len(out) >= limit:
                        return out
            return out
        start = text.find("{", start + 1)
    return [text]


_SEQ_RE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")


def _sequence(m: re.Match[str]) -> list[str]:
    """The items of a `{a..e}` or `{1..9..2}` sequence expression (at most 64)."""
    a, b, step = m.group(1), m.group(2), abs(int(m.group(3) or 1)) or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(n) for n in list(rng)[:64]]
    if a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(n) for n in list(rng)[:64]]
    return [m.group(0)]


def skip_dquote(s: str, i: int) -> int:
    """Index just past the `"` closing the double-quoted string whose body starts at i."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif s.startswith("$(", i):
            i = match_paren(s, i + 2) + 1
        elif c == "`":
            i = skip_backtick(s, i + 1) + 1
        else:
            i += 1
    return n


def skip_backtick(s: str, i: int) -> int:
    """Index of the backtick closing the substitution whose body starts at i (len(s) if none)."""
    n = len(s)
    while i < n:
        if s[i] == "\\":
            i += 2
        elif s[i] == "`":
            return i
        else:
            i += 1
    return n


def match_paren(s: str, i: int, open_ch: str = "(", close_ch: str = ")") -> int:
    """Index of the bracket closing the group whose body starts at i, quote-aware (len(s) if none)."""
    n, depth = len(s), 1
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and open_ch == "(":
            end = s.find("'", i + 1)
            i = n if end == -1 else end + 1
            continue
        if c == '"':
            i = skip_dquote(s, i + 1)
            continue
        if c == "`":
            i = skip_backtick(s, i + 1) + 1
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n


def scan_subs(text: str) -> list[str]:
    """Command substitutions in text read with double-quote rules (here-docs, `${...}`, `$((...))`)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
        elif text.startswith("$((", i):
            end = match_paren(text, i + 2)
            out.extend(scan_subs(text[i + 3 : end - 1]))
            i = end + 1
        elif text.startswith("$(", i):
            end = match_paren(text, i + 2)
            out.append(text[i + 2 : end])
            i = end + 1
        elif text[i] == "`":
            end = skip_backtick(text, i + 1)
            out.append(unescape_backtick(text[i + 1 : end]))
            i = end + 1
        else:
            i += 1
    return out


def unescape_backtick(body: str) -> str:
    """Undo the backslash escapes bash applies inside backticks."""
    return re.sub(r"\\([`$\\])", r"\1", body)


def decode_ansi_c(body: str) -> str:
    """Decode the body of a `$'...'` string."""
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ANSI_C:
            out.append(_ANSI_C[nxt])
            i += 2
        elif nxt == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])
            out.append(chr(int(m.group(), 16)) if m else "x")
            i += 2 + (len(m.group()) if m else 0)
        elif nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m is not None
            out.append(chr(int(m.group(), 8)))
            i += 1 + len(m.group())
        else:
            out.append(nxt)
            i += 2
    return "".join(out)


_VAR_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_ARITH_NAME_RE = re.compile(r"(?<![\w#$])[A-Za-z_][A-Za-z0-9_]*")


def arith_names(body: str) -> list[str]:
    """Variables an arithmetic body reads: bare names are variables there (`$((KEY + 0))`)."""
    return _ARITH_NAME_RE.findall(body) + scan_vars(body)


def param_names(inner: str) -> list[str]:
    """Variables a `${...}` body reads: its own (`!X` for `${!X}`, X for `${#X}`) and nested ones."""
    out: list[str] = []
    body = inner
    prefix = ""
    if inner[:1] in ("!", "#") and _VAR_NAME_RE.match(inner, 1):
        prefix = "!" if inner[0] == "!" else ""
        body = inner[1:]
    m = _VAR_NAME_RE.match(body)
    out.append(prefix + (m.group() if m else "?"))
    return out + scan_vars(body[m.end() if m else 0 :])


# `${NAME:-word}`, `${NAME:=word}` and kin (`-=+?`, with or without the colon).
_PARAM_WORD_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?:?([-=+?])")


def param_parts(inner: str) -> tuple[str, str]:
    """For a `${...}` body: the name it assigns (`${x:=word}`, else "") and the word it may
    stand for instead of the variable (`cat ${f:-/proc/self/environ}`, else "")."""
    m = _PARAM_WORD_RE.match(inner)
    if m is None:
        return "", ""
    return (m.group(1) if m.group(2) == "=" else ""), inner[m.end() :]


def scan_vars(text: str) -> list[str]:
    """Parameters expanded in text read with double-quote rules (here-documents, `${...}` bodies).

    It over-reads rather than under-reads: a `$` it cannot place is skipped, a name inside a
    quoted part of a `${...}` default still counts.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif text.startswith("$((", i):
            end = match_paren(text, i + 2)
            out += arith_names(text[i + 3 : end - 1])
            i = end + 1
        elif text.startswith("$[", i):
            end = match_paren(text, i + 2, "[", "]")
            out += arith_names(text[i + 2 : end])
            i = end + 1
        elif text.startswith("$(", i):
            i = match_paren(text, i + 2) + 1  # a substitution is classified on its own
        elif c == "`":
            i = skip_backtick(text, i + 1) + 1
        elif text.startswith("${", i):
            end = match_paren(text, i + 2, "{", "}")
            out += param_names(text[i + 2 : end])
            i = end + 1
        elif c == "$" and (m := _VAR_NAME_RE.match(text, i + 1)):
            out.append(m.group())
            i = m.end()
        else:
            i += 1
    return out
