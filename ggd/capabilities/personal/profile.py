"""GG_HOME/USER.md: who the user is, as `- Key: Value` lines before the first heading, notes after.

    - Name: Ada Lovelace
    - Call me: Ada
    - Timezone: Europe/London
    - Language: English

    # Notes
    Prefers short answers.

The parser is lenient about content (unknown keys are kept, other lines become notes) and strict
about the file: unreadable, binary, non-UTF-8 or oversized files are a `ProfileError` whose message
names the problem, so the daemon can warn once and go on without a profile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ggd.app import write_private

PROFILE_FILE = "USER.md"
# The keys `gg init` asks for, in the order the template lists them.
KNOWN_KEYS = ("Name", "Call me", "Timezone", "Language")
MAX_BYTES = 64 * 1024
NOTES_BUDGET_CHARS = 2000
_FIELD = re.compile(r"^[-*]\s+([^:\n]{1,40}):[ \t]*(.*)$")


class ProfileError(Exception):
    """USER.md exists but cannot be used; the message says why (never a traceback)."""


@dataclass
class Profile:
    """The parsed profile: fields in file order and the free notes."""

    fields: dict[str, str] = field(default_factory=dict)
    notes: str = ""

    def get(self, key: str) -> str:
        """A field by key, case-insensitively ('' when absent)."""
        for k, v in self.fields.items():
            if k.lower() == key.lower():
                return v
        return ""

    @property
    def empty(self) -> bool:
        """True when nothing in it would tell the model anything."""
        return not any(self.fields.values()) and not self.notes


def parse_profile(text: str) -> Profile:
    """Parse USER.md text: fields until the first heading, everything else is notes."""
    profile = Profile()
    notes: list[str] = []
    in_header = True
    for line in text.splitlines():
        if in_header and line.lstrip().startswith("#"):
            in_header = False
            continue  # the first heading ("# Notes") only marks where the notes start
        m = _FIELD.match(line.strip()) if in_header else None
        if m:
            profile.fields[m.group(1).strip()] = m.group(2).strip()
        elif in_header and not line.strip():
            continue
        elif not line.lstrip().startswith("<!--"):
            notes.append(line)
    profile.notes = "\n".join(notes).strip()
    return profile


def read_profile(path: Path) -> Profile | None:
    """The profile at path, None when there is no file; ProfileError when it is unusable."""
    text = read_profile_text(path)
    return None if text is None else parse_profile(text)


def read_profile_text(path: Path) -> str | None:
    """USER.md's text, None when there is no file; ProfileError when it is unusable."""
    try:
        if path.is_dir():
            raise ProfileError(f"{path.name} is a folder, not a file")
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except PermissionError:
        raise ProfileError(f"{path.name} cannot be read (permission denied)") from None
    except OSError as exc:
        raise ProfileError(f"{path.name} cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise ProfileError(f"{path.name} is larger than {MAX_BYTES // 1024} KiB")
    if b"\x00" in data:
        raise ProfileError(f"{path.name} is a binary file, not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{path.name} is not valid UTF-8 (byte {exc.start})") from None
    return text


def render_profile(profile: Profile) -> str:
    """The compact "who you are" text for the system prompt ('' when there is nothing to say)."""
    lines = [f"- {k}: {v}" for k, v in profile.fields.items() if v]
    if profile.notes:
        notes = profile.notes
        if len(notes) > NOTES_BUDGET_CHARS:
            notes = notes[:NOTES_BUDGET_CHARS] + "\n[... notes truncated]"
        lines += ["", "Notes from the user:", notes]
    if not lines:
        return ""
    return "From their profile (USER.md):\n" + "\n".join(lines)


def profile_template(values: dict[str, str]) -> str:
    """USER.md text with the known keys (values may be empty) and a notes heading."""
    lines = [f"- {k}: {values.get(k, '').strip()}".rstrip() for k in KNOWN_KEYS]
    return (
        "\n".join(lines)
        + "\n\n# Notes\n\n"
        + "<!-- Anything else gg should know about you; this file is sent to the model. -->\n"
    )


def write_profile(path: Path, values: dict[str, str], force: bool) -> bool:
    """Write the template at path (0600, atomic); False when it exists and force is off."""
    if path.exists() and not force:
        return False
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_private(path, profile_template(values).encode("utf-8"))
    return True


__all__ = [
    "KNOWN_KEYS",
    "PROFILE_FILE",
    "Profile",
    "ProfileError",
    "parse_profile",
    "profile_template",
    "read_profile",
    "read_profile_text",
    "render_profile",
    "write_profile",
]
