"""The artifact store: GG_HOME/artifacts/<id>/artifact.json plus immutable v1.md, v2.html, ...

Version numbers are allocated and publication is marked under one flock on artifacts.lock, so
two processes editing the same artifact never share a version. artifact.json is the commit
record: an edit writes vN+1 (temp file + rename), then replaces artifact.json atomically, and
only then is vN+1 a version. A version file above artifact.json's `version` is what a process
killed between the two steps left: uncommitted, so the next edit overwrites it and recovery
deletes it. Committed versions (up to `version`) are never rewritten.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from ggd.app.files import write_private
from ggd.protocol import errors as E

from .errors import ArtifactNotFoundError, VersionChangedError
from .files import locked, now_ms, private_dir, read_json, write_json

ArtifactType = Literal["markdown", "html"]
TYPES: dict[str, str] = {"markdown": "md", "html": "html"}
MAX_CONTENT_BYTES = 1024 * 1024
MAX_TITLE_CHARS = 200
_ID = re.compile(r"^a_[0-9a-f]{12}$")
_VERSION_FILE = re.compile(r"^v([0-9]+)\.[a-z]+$")
_META = "artifact.json"
# Roots this process has already swept (recovery runs once, before its first write there).
_recovered: set[Path] = set()


@dataclass
class ArtifactMeta:
    """artifact.json: what an artifact is and how far it got."""

    id: str
    title: str
    type: ArtifactType
    version: int
    # camelCase: the keys of artifact.json itself
    publishedVersion: int
    createdAt: int
    updatedAt: int
    sessionId: str

    @property
    def ext(self) -> str:
        """The version files' extension."""
        return TYPES[self.type]


@dataclass
class VersionInfo:
    """One immutable version file."""

    version: int
    size: int
    createdAt: int


def check_content(content: str) -> bytes:
    """The UTF-8 bytes of a version, or invalid params when over the limit."""
    data = content.encode("utf-8")
    if len(data) > MAX_CONTENT_BYTES:
        raise E.InvalidParamsError(
            f"invalid params: content is {len(data)} bytes; an artifact version holds at most "
            f"{MAX_CONTENT_BYTES} bytes (1 MiB): split it or shorten it"
        )
    return data


def check_title(title: str) -> str:
    """A one-line title, or invalid params."""
    clean = " ".join(title.split())
    if not clean or len(clean) > MAX_TITLE_CHARS:
        raise E.InvalidParamsError(
            f"invalid params: title must be 1 to {MAX_TITLE_CHARS} characters"
        )
    return clean


def check_type(kind: str) -> ArtifactType:
    """markdown or html, or invalid params."""
    if kind not in TYPES:
        raise E.InvalidParamsError("invalid params: type must be 'markdown' or 'html'")
    return kind  # type: ignore[return-value]


class ArtifactStore:
    """Synchronous file logic; callers run it off the event loop (asyncio.to_thread)."""

    def __init__(self, home: Path) -> None:
        self.root = home / "artifacts"
        self.lock_path = self.root / "artifacts.lock"

    # -- reads ------------------------------------------------------------------------------

    def _dir(self, artifact_id: str) -> Path:
        if not _ID.match(artifact_id):
            raise ArtifactNotFoundError(f"no artifact {artifact_id!r}; see gg/artifact.list")
        return self.root / artifact_id

    def get(self, artifact_id: str) -> ArtifactMeta:
        """An artifact's metadata, or artifact_not_found."""
        try:
            raw = read_json(self._dir(artifact_id) / _META)
        except FileNotFoundError:
            raise ArtifactNotFoundError(
                f"no artifact {artifact_id!r}; see gg/artifact.list"
            ) from None
        return ArtifactMeta(**raw)

    def list_all(self) -> list[ArtifactMeta]:
        """Every artifact, most recently updated first (unreadable entries skipped)."""
        out: list[ArtifactMeta] = []
        if not self.root.is_dir():
            return out
        for entry in os.scandir(self.root):
            if entry.is_dir() and _ID.match(entry.name):
                try:
                    out.append(self.get(entry.name))
                except (ArtifactNotFoundError, ValueError, TypeError):
                    continue
        return sorted(out, key=lambda m: (m.updatedAt, m.id), reverse=True)

    def content(self, meta: ArtifactMeta, version: int | None = None) -> str:
        """The text of one version (the latest by default)."""
        v = meta.version if version is None else version
        if not 1 <= v <= meta.version:
            raise E.InvalidParamsError(
                f"invalid params: version must be between 1 and {meta.version}"
            )
        return self.version_path(meta, v).read_bytes().decode("utf-8")

    def version_path(self, meta: ArtifactMeta, version: int) -> Path:
        """Where a version's bytes live."""
        return self._dir(meta.id) / f"v{version}.{meta.ext}"

    def versions(self, artifact_id: str) -> list[VersionInfo]:
        """Every version of an artifact, oldest first."""
        meta = self.get(artifact_id)
        out = []
        for v in range(1, meta.version + 1):
            st = self.version_path(meta, v).stat()
            out.append(VersionInfo(version=v, size=st.st_size, createdAt=int(st.st_mtime * 1000)))
        return out

    # -- recovery (under artifacts.lock) -----------------------------------------------------

    def recover(self) -> None:
        """Delete what killed writers left: temp files, uncommitted versions, half-made or
        half-removed folders. Caller holds the lock (so no live writer is mid-step)."""
        _recovered.add(self.root)
        if not self.root.is_dir():
            return
        for entry in os.scandir(self.root):
            if entry.name.startswith(".removed-") and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)  # a remove killed before rmtree
            elif _ID.match(entry.name) and entry.is_dir(follow_symlinks=False):
                self._recover_folder(Path(entry.path))

    def _recover_folder(self, folder: Path) -> None:
        try:
            meta: ArtifactMeta | None = ArtifactMeta(**read_json(folder / _META))
        except FileNotFoundError:
            meta = None  # a create killed before its artifact.json: never acknowledged
        except (ValueError, TypeError):
            return  # unreadable metadata is for a person to look at, not for us to delete
        if meta is None:
            shutil.rmtree(folder, ignore_errors=True)
            return
        self._clean(folder, meta)

    @staticmethod
    def _clean(folder: Path, meta: ArtifactMeta) -> None:
        """Delete temp files and uncommitted versions in one artifact's folder (locked)."""
        for entry in os.scandir(folder):
            m = _VERSION_FILE.match(entry.name)
            # write_private's temp files are ".<name>.<random>"; they only live under the lock.
            stale = entry.name.startswith(".") or (m is not None and int(m[1]) > meta.version)
            if stale and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        return locked(self.lock_path, "artifact store")

    def _first_write(self) -> None:
        if self.root not in _recovered:
            self.recover()

    # -- writes (under artifacts.lock) -------------------------------------------------------

    def create(self, title: str, kind: str, content: str, session_id: str) -> ArtifactMeta:
        """A new artifact at version 1."""
        title, kind_, data = check_title(title), check_type(kind), check_content(content)
        private_dir(self.root)
        with self._locked():
            self._first_write()
            while True:
                artifact_id = f"a_{secrets.token_hex(6)}"
                if not (self.root / artifact_id).exists():
                    break
            folder = private_dir(self.root / artifact_id)
            ts = now_ms()
            meta = ArtifactMeta(artifact_id, title, kind_, 1, 0, ts, ts, session_id)
            self._write_version(folder / f"v1.{meta.ext}", data)
            write_json(folder / _META, asdict(meta))
        return meta

    def edit(self, artifact_id: str, content: str, session_id: str = "") -> ArtifactMeta:
        """A full new version: the next number, allocated under the lock."""
        data = check_content(content)
        with self._locked():
            self._first_write()
            meta = self.get(artifact_id)
            self._clean(self._dir(artifact_id), meta)  # one folder: cheap, every edit
            meta.version += 1
            meta.updatedAt = now_ms()
            if session_id:
                meta.sessionId = session_id
            self._write_version(self.version_path(meta, meta.version), data)
            write_json(self._dir(artifact_id) / _META, asdict(meta))
        return meta

    def mark_published(self, artifact_id: str, version: int) -> ArtifactMeta:
        """Advance publishedVersion to `version` only if it is still the latest."""
        with locked(self.lock_path, "artifact store"):
            meta = self.get(artifact_id)
            if meta.version != version:
                raise VersionChangedError(
                    f"artifact {artifact_id} changed to v{meta.version} while v{version} was "
                    "being published; publish again"
                )
            meta.publishedVersion = version
            write_json(self._dir(artifact_id) / _META, asdict(meta))
        return meta

    def remove(self, artifact_id: str) -> None:
        """Delete an artifact and all its versions (library copies stay: they are the user's)."""
        folder = self._dir(artifact_id)
        with locked(self.lock_path, "artifact store"):
            self.get(artifact_id)
            # Rename first so a reader never sees a half-deleted artifact.
            doomed = self.root / f".removed-{artifact_id}-{secrets.token_hex(4)}"
            os.rename(folder, doomed)
        shutil.rmtree(doomed, ignore_errors=True)

    @staticmethod
    def _write_version(path: Path, data: bytes) -> None:
        # Always a number above artifact.json's `version`: a file already there was never
        # committed (its writer died before artifact.json named it), so replacing it is safe.
        write_private(path, data)
