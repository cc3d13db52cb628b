"""Wire models and method rows of gg/artifact.* and gg/library.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ggd.protocol import MethodSpec
from ggd.protocol.base import MAX_SAFE_INT, Empty, Params, Result, WireModel
from ggd.protocol.session import EmptyResult

# Bytes through the protocol per call: base64 grows them by 4/3 and a message is at most 4 MiB.
MAX_TRANSFER_BYTES = 2 * 1024 * 1024
_MAX_B64_CHARS = (MAX_TRANSFER_BYTES + 2) // 3 * 4


class Artifact(WireModel):
    """An artifact's metadata: its latest version and the one last published."""

    id: str
    title: str
    type: Literal["markdown", "html"]
    version: int
    published_version: int
    created_at: int
    updated_at: int
    session_id: str


class ArtifactVersion(WireModel):
    """One immutable version."""

    version: int
    size: int
    created_at: int


class LibraryItem(WireModel):
    """One file of the library."""

    id: str
    name: str
    source: str
    size: int
    added_at: int


class ArtifactIdParams(Params):
    """Name one artifact."""

    artifact_id: str = Field(min_length=1, max_length=100)


class ArtifactGetParams(Params):
    """One artifact and the text of a version (the latest by default)."""

    artifact_id: str = Field(min_length=1, max_length=100)
    version: int | None = Field(default=None, ge=1, le=MAX_SAFE_INT)


class ArtifactListResult(Result):
    """Every artifact, most recently updated first."""

    artifacts: list[Artifact]


class ArtifactView(Result):
    """An artifact with one version's content."""

    artifact: Artifact
    version: int
    content: str


class ArtifactVersionsResult(Result):
    """Every version of an artifact, oldest first."""

    versions: list[ArtifactVersion]


class PublishResult(Result):
    """The artifact now published, and its copy in the library."""

    artifact: Artifact
    item: LibraryItem


class LibraryListResult(Result):
    """Every library item; `path` (the folder) only for clients on this machine."""

    items: list[LibraryItem]
    path: str | None = None


class LibraryAddParams(Params):
    """Add a file: from a path on the daemon's machine (local clients) or base64 content."""

    path: str | None = Field(default=None, min_length=1, max_length=4096)
    content: str | None = Field(default=None, max_length=_MAX_B64_CHARS)
    name: str | None = Field(default=None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _one_source(self) -> LibraryAddParams:
        if (self.path is None) == (self.content is None):
            raise ValueError("give exactly one of path or content")
        if self.content is not None and not self.name:
            raise ValueError("content needs a name")
        return self


class LibraryAddResult(Result):
    """The item as listed (its name may differ from the one asked for, to avoid a collision)."""

    item: LibraryItem


class LibraryIdParams(Params):
    """Name one library item."""

    item_id: str = Field(min_length=1, max_length=100)


class LibraryGetParams(Params):
    """Read an item's bytes, one chunk of at most 2 MiB from `offset`."""

    item_id: str = Field(min_length=1, max_length=100)
    offset: int = Field(default=0, ge=0, le=MAX_SAFE_INT)


class LibraryGetResult(Result):
    """A chunk of an item as base64; `eof` when it reaches the end."""

    item: LibraryItem
    content: str
    offset: int
    eof: bool


_ART = {
    "id": "a_3f2a9c1b4d5e",
    "title": "Release notes",
    "type": "markdown",
    "version": 2,
    "publishedVersion": 1,
    "createdAt": 1764475200000,
    "updatedAt": 1764475260000,
    "sessionId": "s_1a2b",
}
_ITEM = {
    "id": "l_9e8d7c6b5a41",
    "name": "Release notes.md",
    "source": "artifact:a_3f2a9c1b4d5e",
    "size": 812,
    "addedAt": 1764475300000,
}

ARTIFACT_LIST = MethodSpec(
    "gg/artifact.list",
    "Every artifact (versioned deliverables the agent wrote), most recently updated first.",
    Empty,
    ArtifactListResult,
    example={"params": {}, "result": {"artifacts": [_ART]}},
)
ARTIFACT_GET = MethodSpec(
    "gg/artifact.get",
    "An artifact and the content of one version (the latest by default).",
    ArtifactGetParams,
    ArtifactView,
    example={
        "params": {"artifactId": "a_3f2a9c1b4d5e", "version": 2},
        "result": {"artifact": _ART, "version": 2, "content": "# Release notes\n"},
    },
)
ARTIFACT_VERSIONS = MethodSpec(
    "gg/artifact.versions",
    "The versions of an artifact, oldest first.",
    ArtifactIdParams,
    ArtifactVersionsResult,
    example={
        "params": {"artifactId": "a_3f2a9c1b4d5e"},
        "result": {
            "versions": [
                {"version": 1, "size": 640, "createdAt": 1764475200000},
                {"version": 2, "size": 812, "createdAt": 1764475260000},
            ]
        },
    },
)
ARTIFACT_PUBLISH = MethodSpec(
    "gg/artifact.publish",
    "Copy the latest version into the library and mark it published; version_changed "
    "(-32012) when an edit raced it: read again and retry.",
    ArtifactIdParams,
    PublishResult,
    example={
        "params": {"artifactId": "a_3f2a9c1b4d5e"},
        "result": {"artifact": {**_ART, "publishedVersion": 2}, "item": _ITEM},
    },
)
ARTIFACT_REMOVE = MethodSpec(
    "gg/artifact.remove",
    "Delete an artifact and its versions (library copies stay).",
    ArtifactIdParams,
    EmptyResult,
    example={"params": {"artifactId": "a_3f2a9c1b4d5e"}, "result": {}},
)
LIBRARY_LIST = MethodSpec(
    "gg/library.list",
    "The user's library files; `path` (the folder) only for clients on this machine.",
    Empty,
    LibraryListResult,
    example={"params": {}, "result": {"items": [_ITEM]}},
)
LIBRARY_ADD = MethodSpec(
    "gg/library.add",
    "Add a file from a path on the daemon's machine (local clients only, at most 50 MiB) or "
    "from base64 content (at most 2 MiB); a name taken case-insensitively gets a new one.",
    LibraryAddParams,
    LibraryAddResult,
    example={
        "params": {"name": "notes.txt", "content": "aGVsbG8K"},
        "result": {
            "item": {
                "id": "l_0a1b2c3d4e5f",
                "name": "notes.txt",
                "source": "upload",
                "size": 6,
                "addedAt": 1764475400000,
            }
        },
    },
)
LIBRARY_GET = MethodSpec(
    "gg/library.get",
    "A library file's bytes as base64, at most 2 MiB per call from `offset`.",
    LibraryGetParams,
    LibraryGetResult,
    example={
        "params": {"itemId": "l_0a1b2c3d4e5f"},
        "result": {
            "item": {
                "id": "l_0a1b2c3d4e5f",
                "name": "notes.txt",
                "source": "upload",
                "size": 6,
                "addedAt": 1764475400000,
            },
            "content": "aGVsbG8K",
            "offset": 0,
            "eof": True,
        },
    },
)
LIBRARY_REMOVE = MethodSpec(
    "gg/library.remove",
    "Remove a file from the library (the index entry, then the file).",
    LibraryIdParams,
    EmptyResult,
    example={"params": {"itemId": "l_0a1b2c3d4e5f"}, "result": {}},
)

METHODS: tuple[MethodSpec, ...] = (
    ARTIFACT_LIST,
    ARTIFACT_GET,
    ARTIFACT_VERSIONS,
    ARTIFACT_PUBLISH,
    ARTIFACT_REMOVE,
    LIBRARY_LIST,
    LIBRARY_ADD,
    LIBRARY_GET,
    LIBRARY_REMOVE,
)
