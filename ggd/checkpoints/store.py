"""CheckpointStore: snapshots, diffs and restores of one workspace in a shadow git repository.

Layout under the store folder (mode 0700, GG_HOME/checkpoints/<workspace id>/):
`git/` the shadow git directory (its own index, refs `refs/gg/cp/<commit>` per snapshot and
`refs/gg/latest`, the state gg last recorded or restored), `lock` (flock: one writer across
processes), `restore.json` (the journal of a restore in progress, see `restore`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .diffs import Diff, diff_trees
from .gitcli import Git, GitError
from .maintenance import PREFIX, fsync_dir, prune_refs, write_synced

log = logging.getLogger("ggd.checkpoints")

# Never snapshotted: dependency and build folders that are large, regenerated, and rarely
# what a user means to undo. Config `checkpoints.ignore` replaces this list.
DEFAULT_IGNORE: tuple[str, ...] = (
    "node_modules/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".tox/",
    ".gradle/",
    "target/",
    "dist/",
    "build/",
    ".next/",
    ".DS_Store",
)

# Override every in-tree .gitattributes: bytes in, the same bytes out (no eol or filter).
_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n"
_LATEST = "refs/gg/latest"
_PREFIX = PREFIX
LOCK_TIMEOUT = 60.0
# Loose objects packed together past this count (a first snapshot, a big turn).
LOOSE_LIMIT = 1000
# A workspace over max_files is listed again after this many seconds, not at every snapshot.
TOO_BIG_RECHECK = 600.0


class CheckpointError(Exception):
    """A checkpoint operation cannot be done; the message says why, for a user."""


@dataclass(frozen=True)
class CheckpointSettings:
    """`checkpoints` in config.json (docs/checkpoints.md)."""

    enabled: bool = True
    ignore: tuple[str, ...] = DEFAULT_IGNORE
    max_file_bytes: int = 10 * 1024 * 1024
    # A workspace with more files than this (a home folder opened by mistake) is not snapshotted.
    max_files: int = 100_000
    max_age_days: float = 30.0
    max_store_bytes: int = 2 * 1024 * 1024 * 1024
    prune_every_seconds: float = 3600.0


@dataclass(frozen=True)
class Snapshot:
    """One snapshot: its commit and tree, and the files skipped for their size."""

    commit: str
    tree: str
    skipped: tuple[str, ...] = ()
    new: bool = True  # False: the tree equals gg's last recorded state (nothing was added)


class CheckpointStore:
    """The checkpoints of one workspace. Every method is synchronous (call it in a thread)."""

    def __init__(self, folder: Path, workspace: Path, settings: CheckpointSettings) -> None:
        self.folder = folder
        self.workspace = workspace
        self.settings = settings
        self.git = Git(folder / "git", workspace)
        self._ready = False
        # Until when (monotonic) a workspace found over max_files is not scanned again.
        self._too_big_until = 0.0

    # -- setup ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's writer lock (one git writer across threads and processes)."""
        import portalocker  # ~20 ms of imports: at the first snapshot, not at daemon start

        self._ensure_folder()
        try:
            with portalocker.Lock(
                str(self.folder / "lock"),
                mode="a",
                timeout=LOCK_TIMEOUT,
                flags=portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING,
            ):
                yield
        except portalocker.exceptions.LockException:
            raise CheckpointError("the checkpoint store is busy; try again") from None

    def _ensure_folder(self) -> None:
        # GG_HOME/checkpoints too: mkdir(parents=True) would make it with the umask's mode.
        for folder in (self.folder.parent, self.folder):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(folder, 0o700)

    def _init(self) -> None:
        """Create the shadow repository once (under the lock)."""
        if self._ready:
            return
        if not self.workspace.is_dir():
            raise CheckpointError(f"the workspace folder {self.workspace} does not exist")
        gd = self.git.git_dir
        if not (gd / "HEAD").exists():
            (gd / "home").mkdir(mode=0o700, parents=True, exist_ok=True)
            (gd / "hooks-off").mkdir(mode=0o700, exist_ok=True)
            self.git.run(["init", "-q", "--template="])
            # Appended in git's config-file syntax (a section may repeat; later values win):
            # one `git config` process per key cost ~35 ms of a first snapshot.
            with (gd / "config").open("a", encoding="utf-8") as cfg:
                cfg.write(_config_text(gd / "hooks-off"))
        (gd / "info").mkdir(exist_ok=True)
        (gd / "info" / "attributes").write_text(_ATTRIBUTES, encoding="utf-8")
        self._ready = True

    def _write_excludes(self, skipped: Sequence[str]) -> None:
        lines = [*self.settings.ignore, *("/" + _glob_escape(p) for p in skipped)]
        (self.git.git_dir / "info" / "exclude").write_text(
            "\n".join(lines) + "\n", encoding="utf-8"
        )

    # -- snapshots ------------------------------------------------------------------------------

    def snapshot(self, note: str = "") -> Snapshot:
        """Record the workspace as it is now; an unchanged tree adds no object."""
        if time.monotonic() < self._too_big_until:  # a home folder: do not list it every tool
            raise CheckpointError(f"the workspace has more than {self.settings.max_files} files")
        with self.locked():
            self._init()
            return self._snapshot(note)

    def _snapshot(self, note: str, *, advance: bool = True) -> Snapshot:
        """Snapshot; `advance` makes it gg's last recorded state (what conflicts compare to)."""
        self._write_excludes(())
        skipped = self._oversized()
        if skipped:
            self._write_excludes(skipped)
            self.git.run(
                [
                    "rm",
                    "-q",
                    "--cached",
                    "--ignore-unmatch",
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                ],
                stdin=b"\0".join(os.fsencode(p.rstrip("/")) for p in skipped),
            )
        # --ignore-errors: a file that vanishes or is unreadable mid-scan (a running build) is
        # left out of this snapshot instead of failing it.
        self.git.run(["add", "-A", "--ignore-errors", "."], ok=(0, 1))
        tree = self.git.text(["write-tree"])
        latest = self._latest()
        if latest is not None and self._tree_of(latest) == tree:
            return Snapshot(commit=latest, tree=tree, skipped=tuple(skipped), new=False)
        message = json.dumps({"note": note, "skipped": skipped, "at": int(time.time() * 1000)})
        commit = self.git.text(["commit-tree", tree, "-m", message])
        self.git.run(["update-ref", _PREFIX + commit, commit])
        self._pack_loose()
        if advance:
            self.git.run(["update-ref", _LATEST, commit])
        return Snapshot(commit=commit, tree=tree, skipped=tuple(skipped))

    def _pack_loose(self) -> None:
        """Pack loose objects once there are many: each takes a 4 KB block, most are ~1 KB."""
        out = self.git.text(["count-objects"])  # "N objects, M kilobytes"
        try:
            loose = int(out.split(" ", 1)[0])
        except ValueError:
            return
        if loose >= LOOSE_LIMIT:
            # No delta search (--window=0): 5x less CPU on a first snapshot of 10,000 files.
            self.git.run(["repack", "-d", "-q", "--window=0"])
            self.git.run(["prune-packed", "-q"])

    def _oversized(self) -> list[str]:
        """What is left out: files (tracked or not, not ignored) over the size limit, and
        nested git repositories (`sub/`: git would record only their commit, and a restore
        must never delete one), workspace-relative."""
        limit = self.settings.max_file_bytes
        out = self.git.run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        big: list[str] = []
        root = self.workspace
        names = out.split(b"\0")
        if len(names) - 1 > self.settings.max_files:
            self._too_big_until = time.monotonic() + TOO_BIG_RECHECK
            raise CheckpointError(
                f"the workspace has more than {self.settings.max_files} files "
                "(checkpoints.maxFiles); no checkpoint was taken"
            )
        for raw in names:
            if not raw:
                continue
            name = os.fsdecode(raw).rstrip("/")
            try:
                st = os.lstat(root / name)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):  # an untracked `sub/` or a recorded gitlink
                big.append(name + "/")
            elif st.st_size > limit:
                big.append(name)
        return sorted(set(big))

    def _latest(self) -> str | None:
        out = self.git.run(["rev-parse", "-q", "--verify", _LATEST + "^{commit}"], ok=(0, 1))
        return out.decode().strip() or None

    def _tree_of(self, commit: str) -> str:
        return self.git.text(["rev-parse", commit + "^{tree}"])

    def latest(self) -> str | None:
        """The state gg last recorded or restored in this workspace."""
        with self.locked():
            self._init()
            return self._latest()

    def exists(self, commit: str) -> bool:
        """Whether a snapshot is still in the store (not pruned)."""
        with self.locked():
            self._init()
            return self._exists(commit)

    def _exists(self, commit: str) -> bool:
        # A snapshot lives while its ref does (pruning deletes the ref, then the objects).
        ref = _PREFIX + commit
        return self.git.run(["rev-parse", "-q", "--verify", ref], ok=(0, 1)).strip() != b""

    def skipped_of(self, commit: str) -> tuple[str, ...]:
        """The files a snapshot skipped for their size."""
        body = self.git.text(["log", "-1", "--format=%B", commit])
        try:
            return tuple(json.loads(body).get("skipped") or ())
        except (ValueError, AttributeError):
            return ()

    def files(self, commit: str) -> dict[str, tuple[str, str]]:
        """path -> (mode, blob id) of every file in a snapshot."""
        with self.locked():
            self._init()
            out = self.git.run(["ls-tree", "-r", "-z", "--full-tree", commit])
        found: dict[str, tuple[str, str]] = {}
        for rec in out.split(b"\0"):
            if rec:
                meta, _, path = rec.partition(b"\t")
                mode, _kind, oid = meta.decode().split(" ")
                found[os.fsdecode(path)] = (mode, oid)
        return found

    # -- diffs ----------------------------------------------------------------------------------

    def diff(self, old: str, new: str, patch_limit: int = 200_000) -> Diff:
        """Every file that differs from `old` to `new`, with a unified patch (cut at the limit)."""
        with self.locked():
            self._init()
            for c in (old, new):
                if not self._exists(c):
                    raise CheckpointError(f"checkpoint {c[:12]} was pruned")
            return self._diff(old, new, patch_limit)

    def _diff(self, old: str, new: str, patch_limit: int) -> Diff:
        skipped = tuple(sorted(set(self.skipped_of(old)) | set(self.skipped_of(new))))
        return diff_trees(self.git, old, new, patch_limit, skipped)

    # -- restore --------------------------------------------------------------------------------

    def plan(self, target: str) -> tuple[Snapshot, str | None, Diff, list[str]]:
        """Snapshot now and say what restoring `target` would change.

        Returns (the current snapshot, gg's last recorded state before it, the diff current ->
        target, the conflicts: files changed outside gg since that last state that the restore
        would overwrite). The current snapshot is kept, so the restore can itself be undone.
        """
        with self.locked():
            self._init()
            if not self._exists(target):
                raise CheckpointError(f"checkpoint {target[:12]} was pruned or never existed")
            before = self._latest()
            # Not advancing: a preview must not make files changed outside gg look known.
            now = self._snapshot("before restore", advance=False)
            diff = self._diff(now.commit, target, 200_000)
            conflicts: list[str] = []
            if before is not None and before != now.commit:
                outside = {c.path for c in self._diff(before, now.commit, 0).files}
                conflicts = sorted(outside & {c.path for c in diff.files})
            return now, before, diff, conflicts

    def restore(self, current: str, target: str) -> None:
        """Make the workspace equal to `target`, from the snapshot `current` it equals now.

        The journal (`restore.json`, fsynced) is written first; a kill in the middle leaves it
        behind and `recover()` (run at the next daemon start) rolls the restore forward, so
        the workspace ends as it was or as restored, never half.
        """
        with self.locked():
            self._init()
            if not self._exists(target):
                raise CheckpointError(f"checkpoint {target[:12]} was pruned or never existed")
            journal = self.folder / "restore.json"
            data = json.dumps({"workspace": str(self.workspace), "from": current, "to": target})
            write_synced(journal, data.encode())
            self._apply(current, target)
            journal.unlink()
            fsync_dir(self.folder)

    def _apply(self, current: str, target: str, *, recovering: bool = False) -> None:
        # A killed git leaves its index.lock; we hold the store's lock, so no git runs here now.
        with contextlib.suppress(FileNotFoundError):
            (self.git.git_dir / "index.lock").unlink()
        if recovering or self.git.text(["write-tree"]) != self._tree_of(current):
            # The index must describe `current` with fresh stat data, or read-tree -u rewrites
            # every file (5 s and every mtime on 10,000 files); after plan() it already does.
            self.git.run(["read-tree", current])
            self.git.run(["update-index", "-q", "--refresh"], ok=(0, 1))
        self.git.run(["read-tree", "--reset", "-u", target])
        self.git.run(["update-ref", _LATEST, target])

    def recover(self) -> bool:
        """Finish a restore a kill interrupted (True when there was one)."""
        journal = self.folder / "restore.json"
        if not journal.exists():
            return False
        with self.locked():
            self._init()
            try:
                data = json.loads(journal.read_text(encoding="utf-8"))
                self._apply(str(data["from"]), str(data["to"]), recovering=True)
            except (ValueError, KeyError, GitError) as exc:
                log.warning("could not finish an interrupted restore: %s", exc)
                return False
            journal.unlink()
            fsync_dir(self.folder)
            log.warning("finished a restore that was interrupted (workspace %s)", self.workspace)
            return True

    # -- pruning --------------------------------------------------------------------------------

    def prune(self, keep: Sequence[str] = ()) -> int:
        """Drop snapshots older than max_age_days, then the oldest while over max_store_bytes.

        Returns how many were dropped. Runs at most every prune_every_seconds (a stamp file).
        """
        stamp = self.folder / "pruned"
        with contextlib.suppress(FileNotFoundError):
            if time.time() - stamp.stat().st_mtime < self.settings.prune_every_seconds:
                return 0
        with self.locked():
            self._init()
            stamp.touch()
            return self._prune(set(keep))

    def _prune(self, keep: set[str]) -> int:
        st = self.settings
        return prune_refs(self.git, self._latest(), keep, st.max_age_days, st.max_store_bytes)


def _config_text(hooks_off: Path) -> str:
    """The shadow repository's settings: no hooks, no line-ending or fsmonitor magic, no gc."""
    hooks = str(hooks_off).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return (
        "[core]\n"
        f'\thooksPath = "{hooks}"\n'
        "\tautocrlf = false\n\tfilemode = true\n\tsymlinks = true\n"
        "\tuntrackedCache = true\n\tfsmonitor = false\n\tquotePath = false\n"
        "[gc]\n\tauto = 0\n"
        "[advice]\n\taddEmbeddedRepo = false\n"
        "[commit]\n\tgpgSign = false\n"
    )


def _glob_escape(path: str) -> str:
    """A path as a literal gitignore pattern."""
    out = []
    for ch in path:
        if ch in "*?[]\\!# ":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def recover_all(root: Path, settings: CheckpointSettings) -> int:
    """Finish every restore a kill interrupted under `root` (GG_HOME/checkpoints)."""
    done = 0
    if not root.is_dir():
        return 0
    for journal in root.glob("*/restore.json"):
        try:
            data = json.loads(journal.read_text(encoding="utf-8"))
            store = CheckpointStore(journal.parent, Path(data["workspace"]), settings)
            done += store.recover()
        except (OSError, ValueError, KeyError, CheckpointError, GitError) as exc:
            log.warning("could not finish an interrupted restore: %s", exc)
    return done
