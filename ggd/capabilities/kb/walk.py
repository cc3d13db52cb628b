"""Which files of a tree get indexed: skip VCS/dependency/build folders, binaries, big files and
whatever .gitignore files (nested, with negation) exclude."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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


def walk(root: Path, skipped: Skipped | None = None) -> Iterator[tuple[str, Path]]:
    """(relative posix path, absolute path) of every indexable file under root, sorted."""
    skipped = skipped if skipped is not None else Skipped()
    yield from _walk(root, "", [], skipped)


def _walk(root: Path, rel_dir: str, rules: list[Rule], sk: Skipped) -> Iterator[tuple[str, Path]]:
    folder = root / rel_dir if rel_dir else root
    gi = folder / ".gitignore"
    if gi.is_file():
        try:
            rules = rules + parse_gitignore(gi.read_text(errors="replace"), rel_dir)
        except OSError:
            pass
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
        if e.is_symlink():
            continue  # a link may leave the tree or loop; the tree's own files are enough
        if e.is_dir():
            if e.name in SKIP_DIRS or e.name.endswith(".egg-info") or ignored(rel, True, rules):
                sk.ignored += 1
                continue
            yield from _walk(root, rel, rules, sk)
            continue
        if not e.is_file() or e.name == ".gitignore":
            continue
        if ignored(rel, False, rules):
            sk.ignored += 1
            continue
        if Path(e.name).suffix.lower() in BINARY_SUFFIXES:
            sk.binary += 1
            continue
        try:
            size = e.stat().st_size
        except OSError:
            continue
        if size > MAX_BYTES:
            sk.too_big += 1
            continue
        yield rel, Path(e.path)
