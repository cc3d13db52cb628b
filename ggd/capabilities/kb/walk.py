"""Which files of a tree get indexed: skip VCS/dependency/build folders, binaries, big files,
whatever .gitignore files (nested, with negation) exclude, symlinks, files with several hard
links, and credential locations and gg's own state (private.py)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .private import Private, denied_name

MAX_BYTES = 512 * 1024
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        "node_modules",
        "bower_components",
        "vendor",
        ".venv",
        "venv",
        "env",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        "dist",
        "build",
        "target",
        "out",
        ".next",
        ".nuxt",
        ".gradle",
        ".idea",
        ".cache",
        "coverage",
        "htmlcov",
        "site-packages",
    }
)
BINARY_SUFFIXES = frozenset(
    ".png .jpg .jpeg .gif .webp .ico .bmp .pdf .zip .gz .tgz .bz2 .xz .7z .tar .whl .jar .so "
    ".dylib .dll .exe .o .a .pyc .pyo .class .wasm .mp3 .mp4 .wav .ogg .flac .mov .avi .woff "
    ".woff2 .ttf .otf .eot .sqlite .db .bin .pt .onnx .safetensors .npy .npz .parquet".split()
)


@dataclass(frozen=True)
class Rule:
    """One gitignore pattern, compiled; `base` is the folder (relative, '' for root) it lives in."""

    base: str
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _translate(pat: str) -> str:
    """A gitignore glob (already stripped of !, trailing / and anchoring) as a regex body."""
    out, i = [], 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pat.startswith("/**", i) and i + 3 == len(pat):
            out.append("/.*")
            i += 3
            continue
        if pat.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pat.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        elif c == "\\" and i + 1 < len(pat):
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def parse_gitignore(text: str, base: str) -> list[Rule]:
    """The rules of one .gitignore whose folder is `base` (relative to the indexed root)."""
    rules: list[Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if raw.endswith("\\ "):
            line = raw[:-1]
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        elif line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        # A slash at the start or in the middle anchors the pattern to the .gitignore's folder.
        anchored = "/" in line
        line = line.lstrip("/")
        body = _translate(line)
        regex = re.compile(("" if anchored else "(?:.*/)?") + body + "$")
        rules.append(Rule(base, regex, negate, dir_only))
    return rules


def ignored(rel: str, is_dir: bool, rules: list[Rule]) -> bool:
    """Whether the last matching rule ignores rel (a '/'-separated path from the root)."""
    verdict = False
    for r in rules:
        if r.base:
            if not rel.startswith(r.base + "/"):
                continue
            sub = rel[len(r.base) + 1 :]
        else:
            sub = rel
        if r.dir_only and not is_dir:
            continue
        if r.regex.match(sub):
            verdict = not r.negate
    return verdict


def is_binary(head: bytes) -> bool:
    """NUL bytes or undecodable UTF-8 in the first block."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the block's end is still text.
        return exc.start < len(head) - 4
    return False


@dataclass
class Skipped:
    """Counts of what the walk left out, for the summary."""

    ignored: int = 0
    binary: int = 0
    too_big: int = 0
    # Credential locations, gg's own state, private keys (see private.py).
    private: int = 0
    # Files with several hard links: their content may be a file outside the folder.
    linked: int = 0


# One open folder of the walk: its relative path, the gitignore rules in force, its entries.
_Frame = tuple[str, list[Rule], Iterator[os.DirEntry[str]]]


def _frame(root: Path, rel_dir: str, rules: list[Rule]) -> _Frame | None:
    folder = root / rel_dir if rel_dir else root
    gi = folder / ".gitignore"
    if gi.is_file():
        try:
            rules = rules + parse_gitignore(gi.read_text(errors="replace"), rel_dir)
        except OSError:
            pass
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return None
    return rel_dir, rules, iter(entries)


def walk(
    root: Path, skipped: Skipped | None = None, private: Private | None = None
) -> Iterator[tuple[str, Path]]:
    """(relative posix path, absolute path) of every indexable file under root, sorted.

    Depth first with an explicit stack, not recursion: a tree thousands of folders deep is
    walked like any other (only the OS's path length limit ends a branch).
    """
    sk = skipped if skipped is not None else Skipped()
    deny = private if private is not None else Private()
    first = _frame(root, "", [])
    frames = [first] if first is not None else []
    while frames:
        rel_dir, rules, entries = frames[-1]
        e = next(entries, None)
        if e is None:
            frames.pop()
            continue
        rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
        if e.is_symlink():
            continue  # a link may leave the tree or loop; the tree's own files are enough
        if e.is_dir(follow_symlinks=False):
            if e.name in SKIP_DIRS or e.name.endswith(".egg-info") or ignored(rel, True, rules):
                sk.ignored += 1
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if denied_name(rel, True) or deny.is_private_dir(st):
                sk.private += 1
                continue
            frame = _frame(root, rel, rules)
            if frame is not None:
                frames.append(frame)
            continue
        if not e.is_file(follow_symlinks=False) or e.name == ".gitignore":
            continue
        if ignored(rel, False, rules):
            sk.ignored += 1
            continue
        if denied_name(rel, False):
            sk.private += 1
            continue
        if Path(e.name).suffix.lower() in BINARY_SUFFIXES:
            sk.binary += 1
            continue
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_nlink > 1:
            sk.linked += 1
            continue
        if st.st_size > MAX_BYTES:
            sk.too_big += 1
            continue
        yield rel, Path(e.path)


def read_regular(path: Path) -> bytes | None:
    """A walked file's bytes, or None when it is no longer a regular, singly linked file.

    The walk's checks were made on a name; between them and this read the name may have been
    swapped for a symlink or a hard link to a file outside the folder. O_NOFOLLOW refuses a
    symlink, and the checks are made again on the file actually opened.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1 or st.st_size > MAX_BYTES:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(MAX_BYTES + 1)
        return data if len(data) <= MAX_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)
