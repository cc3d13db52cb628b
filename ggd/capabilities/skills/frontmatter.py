"""A small strict parser for SKILL.md frontmatter: `key: value` lines between two `---` lines.

It reads the subset of YAML skills use: plain, 'single' or "double" quoted scalars, `|` and `>`
block scalars, indented continuation lines and `#` comments. Anything else is a FrontmatterError
that names the line, so a broken skill is reported instead of half-loaded.
"""

from __future__ import annotations

import re

_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_BLOCK = ("|", "|-", "|+", ">", ">-", ">+")


class FrontmatterError(ValueError):
    """The frontmatter is missing or malformed; the message says where."""


def split_frontmatter(text: str) -> tuple[dict[str, str], str]:
    """(fields, body) of a SKILL.md text; values are strings, keys as written."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("no frontmatter: the file must start with a '---' line")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise FrontmatterError("the frontmatter is not closed by a '---' line") from None
    return _fields(lines[1:end]), "\n".join(lines[end + 1 :]).strip()


def _fields(lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    key: str | None = None
    block: str | None = None  # the block style of the current key, if any
    parts: list[str] = []

    def flush() -> None:
        if key is not None:
            sep = "\n" if block and block.startswith("|") else " "
            fields[key] = sep.join(p for p in parts if p or sep == "\n").strip()

    for number, line in enumerate(lines, 2):
        stripped = line.strip()
        if line[:1] in (" ", "\t") and key is not None:
            parts.append(stripped)  # continuation of the current value
            continue
        if not stripped or stripped.startswith("#"):
            continue
        m = _KEY.match(line)
        if m is None:
            raise FrontmatterError(f"line {number}: expected 'key: value', got {stripped[:40]!r}")
        flush()
        key, value = m.group(1), (m.group(2) or "").strip()
        if key in fields:
            raise FrontmatterError(f"line {number}: {key!r} appears twice")
        block = value if value in _BLOCK else None
        parts = [] if block else [_scalar(value, number)]
    flush()
    return fields


def _scalar(value: str, number: int) -> str:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if value[:1] in ("'", '"'):
        raise FrontmatterError(f"line {number}: unterminated quoted value")
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()  # a trailing comment
    return value


def parse_bool(value: str, key: str) -> bool:
    """A YAML-ish boolean (true/false/yes/no); FrontmatterError otherwise."""
    low = value.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off", ""):
        return False
    raise FrontmatterError(f"{key} must be true or false, not {value[:20]!r}")


__all__ = ["FrontmatterError", "parse_bool", "split_frontmatter"]
