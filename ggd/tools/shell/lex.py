"""A conservative bash lexer for the command classifier: segments, words, redirects, substitutions.

It never executes anything. It knows single/double quotes, backslash escapes, `$'...'`, `$(...)`,
backticks, `<(...)`/`>(...)`, `${...}`, `$((...))`, here-documents, comments and brace expansion,
which is enough to find every command a string would run and every path it would write.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

from ggd.tools.shell.scan import (
    DYN,
    arith_names,
    decode_ansi_c,
    expand_braces,
    match_paren,
    param_names,
    param_parts,
    scan_subs,
    scan_vars,
    skip_backtick,
    unescape_backtick,
)

_OPERATORS = ("&&", "||", "|&", ";;", ";&", "|", ";", "&", "(", ")", "\n")
_REDIRECT_OPS = ("&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<>", "<&", ">", "<")
_WORD_BREAK = set(" \t\n;&|()<>")
_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=$")
# An assignment word: the name (and subscript) must be unquoted in the source, the value may be.
_RAW_ASSIGN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]'\"\\]*\])?\+?=")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Word:
    """One shell word after quote removal; unknown expansions are replaced by DYN."""

    text: str
    dynamic: bool = False
    glob: bool = False
    quoted: bool = False
    brace: bool = False
    # The word is `NAME=value` with NAME unquoted in the source: a real assignment.
    assign: bool = False
    subs: list[str] = field(default_factory=list)
    # Names of the parameters expanded in this word (`$X`, `${X:-y}`), in order; "@P" marks a
    # prompt expansion, which runs the command substitutions in the variable's value.
    vars: list[str] = field(default_factory=list)
    # `>(...)` bodies: commands whose stdin is what this command writes there.
    feeds: list[str] = field(default_factory=list)
    # `$((...))` bodies: arithmetic, but a body that is a command may still be worth a look.
    arith: list[str] = field(default_factory=list)
    # `${NAME:=value}`: NAME and the variables its new value reads (the classifier's taint).
    param_assigns: list[tuple[str, list[str]]] = field(default_factory=list)
    # The words a `${x:-word}` in this word may stand for, as text.
    defaults: list[str] = field(default_factory=list)

    def alternatives(self) -> list[str]:
        """The texts this word can stand for after brace expansion, or with a default in place
        of an unknown part."""
        texts = expand_braces(self.text) if self.brace else [self.text]
        spots = [k for k, ch in enumerate(self.text) if ch == DYN][:4]
        for k in spots:
            texts += [self.text[:k] + d + self.text[k + 1 :] for d in self.defaults[:4]]
        return texts


@dataclass
class Redirect:
    """A redirection: operator, optional fd and its target word."""

    op: str
    target: Word | None = None
    # A here-document's body (None until read) and whether its expansions stay live.
    body: str | None = None
    body_expands: bool = False


@dataclass
class Segment:
    """One simple command: its words, redirects, substitutions and the operator after it."""

    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    subs: list[str] = field(default_factory=list)
    arith: list[str] = field(default_factory=list)
    op: str = ""


class Lexer:
    """Splits a command string into Segments; home is used to expand `~` and `$HOME`."""

    def __init__(self, source: str, home: str) -> None:
        self.s = source
        self.n = len(source)
        self.i = 0
        self.home = home
        # What the lexer could not fully understand (unterminated quotes, missing delimiters):
        # a command with problems is never read-only.
        self.problems: list[str] = []

    def segments(self) -> list[Segment]:
        """Lex the whole string."""
        segs: list[Segment] = []
        cur = Segment()
        heredocs: list[tuple[str, bool, bool, Redirect, Segment]] = []
        pending: Redirect | None = None
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if self._skip_blank(c):
                continue
            if c in "<>" and s.startswith("(", self.i + 1):
                pass  # process substitution: a word, handled below
            else:
                op = next((o for o in _REDIRECT_OPS if s.startswith(o, self.i)), None)
                if op is not None:
                    self.i += len(op)
                    pending = Redirect(op)
                    cur.redirects.append(pending)
                    continue
                op = next((o for o in _OPERATORS if s.startswith(o, self.i)), None)
                if op is not None:
                    self.i += len(op)
                    cur.op = op
                    segs.append(cur)
                    cur = Segment()
                    pending = None
                    if op == "\n":
                        self._read_heredocs(heredocs)
                    continue
            word = self._word()
            self._array_value(word)
            cur.subs.extend(word.subs)
            cur.arith.extend(word.arith)
            if pending is not None:
                pending.target = word
                if pending.op in ("<<", "<<-"):
                    heredocs.append((word.text, word.quoted, pending.op == "<<-", pending, cur))
                pending = None
            elif (
                not word.quoted
                and word.text.isdigit()
                and self.i < self.n
                and s[self.i] in "<>"
                and not s.startswith("(", self.i + 1)
            ):
                continue  # an fd number glued to the redirect that follows
            else:
                cur.words.append(word)
        segs.append(cur)
        if heredocs:
            # A here-doc with no newline after its operator has no body: nothing to run, but the
            # command is not what it looks like.
            self.problems.append("a here-document without its body")
            for _, quoted, _, redirect, _ in heredocs:
                redirect.body, redirect.body_expands = "", not quoted
        return [seg for seg in segs if seg.words or seg.redirects or seg.subs]

    def _skip_blank(self, c: str) -> bool:
        """Step past a blank, a line continuation or a comment at the cursor (False: none)."""
        if c in " \t":
            self.i += 1
        elif self.s.startswith("\\\n", self.i):
            self.i += 2
        elif c == "#":
            nl = self.s.find("\n", self.i)
            self.i = self.n if nl == -1 else nl
        else:
            return False
        return True

    def _array_value(self, word: Word) -> None:
        """`name=(a b c)` right after `word`: an array assignment, not a subshell."""
        s = self.s
        if not (word.text.endswith("=") and s.startswith("(", self.i)):
            return
        if not _ASSIGN_RE.match(word.text):
            return
        end = match_paren(s, self.i + 1)
        word.subs.extend(scan_subs(s[self.i + 1 : end]))
        # The elements' expansions are the array's value (`a=($KEY)` copies a secret).
        inner = Lexer(s[self.i + 1 : end], self.home).segments()
        word.vars.extend(v for seg in inner for w in seg.words for v in w.vars)
        self.i = end + 1

    def _read_heredocs(self, heredocs: list[tuple[str, bool, bool, Redirect, Segment]]) -> None:
        s = self.s
        while heredocs:
            delim, quoted, strip_tabs, redirect, seg = heredocs.pop(0)
            body: list[str] = []
            closed = False
            while self.i < self.n:
                nl = s.find("\n", self.i)
                line = s[self.i : self.n if nl == -1 else nl]
                self.i = self.n if nl == -1 else nl + 1
                if (line.lstrip("\t") if strip_tabs else line) == delim:
                    closed = True
                    break
                body.append(line.lstrip("\t") if strip_tabs else line)
            if not closed:
                self.problems.append(f"a here-document never closed by `{delim}`")
            redirect.body = "\n".join(body) + ("\n" if body else "")
            redirect.body_expands = not quoted
            if not quoted:
                seg.subs.extend(scan_subs(redirect.body))

    def _word(self) -> Word:
        s, w = self.s, Word("")
        parts: list[str] = []
        start = self.i
        w.assign = _RAW_ASSIGN_RE.match(s, start) is not None
        while self.i < self.n:
            c = s[self.i]
            if c in _WORD_BREAK:
                if c in "<>" and self.i == start and s.startswith("(", self.i + 1):
                    self._process_sub(w, parts)
                    continue
                break
            if c == "\\":
                if s.startswith("\n", self.i + 1):
                    self.i += 2
                    continue
                parts.append(s[self.i + 1 : self.i + 2])
                w.quoted = True
                self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end == -1:
                    self.problems.append("an unterminated single quote")
                    end = self.n
                parts.append(s[self.i + 1 : end])
                w.quoted = True
                self.i = end + 1
            elif c == '"':
                w.quoted = True
                self.i += 1
                self._dquote(w, parts)
            elif c == "$":
                self._dollar(w, parts, in_dquote=False)
            elif c == "`":
                self._backtick(w, parts)
            elif c == "~" and (self.i == start or (w.assign and s[self.i - 1] in "=:")):
                self._tilde(parts)
            else:
                if c == DYN:
                    w.dynamic = True  # re-lexed text (bash -c "$X") keeps its unknown parts
                elif c in "*?[":
                    w.glob = True
                elif c == "{":
                    w.brace = True
                parts.append(c)
                self.i += 1
        if self.i == start:
            self.i += 1  # never stall on a character no rule consumed
        w.text = "".join(parts)
        return w

    def _process_sub(self, w: Word, parts: list[str]) -> None:
        """`<(...)` or `>(...)` at the cursor: an unknown part; `>(...)` reads our output."""
        s = self.s
        end = self._close(match_paren(s, self.i + 2), "process substitution")
        w.subs.append(s[self.i + 2 : end])
        if s[self.i] == ">":
            w.feeds.append(s[self.i + 2 : end])
        w.dynamic = True
        parts.append(DYN)
        self.i = end + 1

    def _tilde(self, parts: list[str]) -> None:
        """`~` or `~user` at the start of a word (or of an assigned value): the home folder."""
        m = re.match(r"~([A-Za-z0-9_.-]*)(?=/|$|[\s;&|()<>])", self.s[self.i :])
        if m:
            user = m.group(1)
            parts.append(self.home if not user else os.path.expanduser("~" + user))
            self.i += len(m.group())
        else:
            parts.append("~")
            self.i += 1

    def _backtick(self, w: Word, parts: list[str]) -> None:
        """A `...` substitution at self.i (bare or in double quotes): an unknown part."""
        end = self._close(skip_backtick(self.s, self.i + 1), "backtick substitution")
        w.subs.append(unescape_backtick(self.s[self.i + 1 : end]))
        w.dynamic = True
        parts.append(DYN)
        self.i = end + 1

    def _dquote(self, w: Word, parts: list[str]) -> None:
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                nxt = s[self.i + 1 : self.i + 2]
                if nxt in ('"', "\\", "$", "`"):
                    parts.append(nxt)
                elif nxt != "\n":
                    parts.append(c + nxt)
                self.i += 2
            elif c == "$":
                self._dollar(w, parts, in_dquote=True)
            elif c == "`":
                self._backtick(w, parts)
            else:
                parts.append(c)
                self.i += 1
        self.problems.append("an unterminated double quote")

    def _close(self, end: int, what: str) -> int:
        """end, noting a problem when the construct never closes (end is past the text)."""
        if end >= self.n:
            self.problems.append(f"an unterminated {what}")
        return end

    def _dollar(self, w: Word, parts: list[str], in_dquote: bool) -> None:
        s, i = self.s, self.i
        if s.startswith(("$((", "$["), i):  # `$[...]`: the old form bash still expands
            old = s[i + 1] == "["
            end = match_paren(s, i + 2, *("[]" if old else "()"))
            end = self._close(end, "arithmetic expansion")
            body = s[i + 2 : end] if old else s[i + 3 : end - 1]
            w.subs.extend(scan_subs(body))
            w.arith.append(body)
            w.vars.extend(arith_names(body))  # bare names are variables there
            self._unknown(w, parts, end + 1)
        elif s.startswith("$(", i):
            end = self._close(match_paren(s, i + 2), "command substitution")
            w.subs.append(s[i + 2 : end])
            self._unknown(w, parts, end + 1)
        elif s.startswith("${", i):
            self._braced(w, parts)
        elif s.startswith("$'", i) and not in_dquote:
            j = i + 2
            while j < self.n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            if j >= self.n:
                self.problems.append("an unterminated $'...' string")
            parts.append(decode_ansi_c(s[i + 2 : j]))
            w.quoted = True
            self.i = j + 1
        elif s.startswith('$"', i) and not in_dquote:
            w.quoted = True
            self.i = i + 2
            self._dquote(w, parts)
        else:
            m = _NAME_RE.match(s, i + 1)
            if m:
                if m.group() == "HOME":
                    parts.append(self.home)
                    self.i = m.end()
                else:
                    w.vars.append(m.group())
                    self._unknown(w, parts, m.end())
            elif i + 1 < self.n and (s[i + 1].isdigit() or s[i + 1] in "@*#?$!-"):
                w.vars.append(s[i + 1])
                self._unknown(w, parts, i + 2)
            else:
                parts.append("$")
                self.i = i + 1

    def _braced(self, w: Word, parts: list[str]) -> None:
        """`${...}` at the cursor: `${HOME}` known, anything else an unknown part."""
        s, i = self.s, self.i
        end = self._close(match_paren(s, i + 2, "{", "}"), "parameter expansion")
        inner = s[i + 2 : end]
        if inner == "HOME":
            parts.append(self.home)
            self.i = end + 1
            return
        # The parameter itself (`!X` for `${!X}`, X for `${#X}`) and the ones a default,
        # pattern or offset inside it reads (`${x:-$KEY}`).
        w.vars.extend(param_names(inner))
        assigned, default = param_parts(inner)
        if assigned:
            w.param_assigns.append((assigned, scan_vars(default)))
        if default:
            segs = Lexer(default, self.home).segments()
            w.defaults.append(" ".join(x.text for seg in segs for x in seg.words))
        if re.search(r"@[A-Za-z]$", inner):
            w.vars.append("@P" if inner.endswith("@P") else "@")
        w.subs.extend(scan_subs(inner))
        self._unknown(w, parts, end + 1)

    def _unknown(self, w: Word, parts: list[str], end: int) -> None:
        w.dynamic = True
        parts.append(DYN)
        self.i = end


def expand_words(words: list[Word], home: str) -> list[Word]:
    """Brace expansion: an unquoted `{a,b}` word becomes several words, as bash makes it."""
    out: list[Word] = []
    for w in words:
        if not w.brace or w.assign:
            out.append(w)
            continue
        alts = expand_braces(w.text)
        if alts == [w.text]:
            out.append(w)
            continue
        for alt in alts:
            text = home + alt[1:] if alt == "~" or alt.startswith("~/") else alt
            # Each word keeps what it expands; the `>(...)` and `$((...))` bodies stay with the
            # segment, which lists them once.
            out.append(replace(w, text=text, brace=False, feeds=[], arith=[]))
    return out


def lex(source: str, home: str) -> list[Segment]:
    """Split a command string into simple-command segments."""
    return Lexer(source, home).segments()


def lex_checked(source: str, home: str) -> tuple[list[Segment], list[str]]:
    """Segments plus what the lexer could not fully understand."""
    lexer = Lexer(source, home)
    segs = lexer.segments()
    return segs, lexer.problems
