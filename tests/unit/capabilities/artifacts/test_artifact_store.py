"""The artifact store on real files: versions across processes, limits, modes, publish races."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ggd.capabilities.artifacts.artifact_store import MAX_CONTENT_BYTES, ArtifactStore
from ggd.capabilities.artifacts.errors import ArtifactNotFoundError, VersionChangedError
from ggd.capabilities.artifacts.library_store import LibraryStore
from ggd.capabilities.artifacts.publish import publish
from ggd.protocol import errors as E

ROOT = Path(__file__).resolve().parents[4]
EDITOR = """
import sys
from pathlib import Path
from ggd.capabilities.artifacts.artifact_store import ArtifactStore
store = ArtifactStore(Path(sys.argv[1]))
go = Path(sys.argv[4])
print("ready", flush=True)
sys.stdin.readline()  # both processes start editing on the same signal
for i in range(int(sys.argv[3])):
    meta = store.edit(sys.argv[2], f"edit {i} by pid", "s_edit")
    print(meta.version, flush=True)
"""


def _editor(home: Path, artifact_id: str, n: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", EDITOR, str(home), artifact_id, str(n), str(home / "go")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def test_two_processes_editing_one_artifact_never_share_a_version(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    meta = store.create("Plan", "markdown", "# v1\n", "s_1")
    procs = [_editor(tmp_path, meta.id, 50) for _ in range(2)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    seen: list[list[int]] = []
    for p in procs:
        out, _ = p.communicate(timeout=120)
        assert p.returncode == 0
        seen.append([int(line) for line in out.split()])
    every = seen[0] + seen[1]
    assert len(every) == 100
    assert sorted(every) == list(range(2, 102)), "a version number was shared or skipped"
    assert all(a < b for a, b in zip(seen[0], seen[0][1:], strict=False))
    final = store.get(meta.id)
    assert final.version == 101
    versions = store.versions(meta.id)
    assert [v.version for v in versions] == list(range(1, 102))
    texts = {store.content(final, v) for v in range(2, 102)}
    assert len(texts) == 50  # each process wrote "edit 0..49": both copies of each exist


def test_files_are_owner_only_and_versions_immutable(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    meta = store.create("Page", "html", "<h1>one</h1>", "s_1")
    store.edit(meta.id, "<h1>two</h1>")
    folder = tmp_path / "artifacts" / meta.id
    assert sorted(p.name for p in folder.iterdir()) == ["artifact.json", "v1.html", "v2.html"]
    assert (folder.stat().st_mode & 0o777) == 0o700
    assert ((tmp_path / "artifacts").stat().st_mode & 0o777) == 0o700
    for f in folder.iterdir():
        assert (f.stat().st_mode & 0o777) == 0o600, f.name
    raw = json.loads((folder / "artifact.json").read_text())
    assert set(raw) == {
        "id",
        "title",
        "type",
        "version",
        "publishedVersion",
        "createdAt",
        "updatedAt",
        "sessionId",
    }
    assert raw["version"] == 2 and raw["publishedVersion"] == 0
    assert store.content(store.get(meta.id), 1) == "<h1>one</h1>"


def test_limits_and_bad_input_are_typed_errors(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    with pytest.raises(E.InvalidParamsError, match="1 MiB"):
        store.create("Big", "markdown", "x" * (MAX_CONTENT_BYTES + 1), "s")
    with pytest.raises(E.InvalidParamsError, match="markdown"):
        store.create("Pdf", "pdf", "x", "s")
    with pytest.raises(E.InvalidParamsError, match="title"):
        store.create("  ", "markdown", "x", "s")
    with pytest.raises(ArtifactNotFoundError):
        store.get("../../etc")
    with pytest.raises(ArtifactNotFoundError):
        store.edit("a_000000000000", "x")
    meta = store.create("Ok", "markdown", "x" * MAX_CONTENT_BYTES, "s")
    assert store.versions(meta.id)[0].size == MAX_CONTENT_BYTES


def test_publish_copies_into_the_library_and_marks_the_version(tmp_path: Path) -> None:
    arts, lib = ArtifactStore(tmp_path), LibraryStore(tmp_path)
    meta = store_with_two_versions(arts)
    done = publish(arts, lib, meta.id)
    assert done.artifact.publishedVersion == 2
    assert done.item.source == f"artifact:{meta.id}"
    assert done.item.name == "Report.md"
    assert lib.path(done.item).read_text() == "# two\n"


def store_with_two_versions(arts: ArtifactStore) -> object:
    meta = arts.create("Report", "markdown", "# one\n", "s_1")
    return arts.edit(meta.id, "# two\n")


def test_publish_racing_an_edit_returns_version_changed_and_leaves_no_copy(
    tmp_path: Path,
) -> None:
    arts, lib = ArtifactStore(tmp_path), LibraryStore(tmp_path)
    meta = arts.create("Report", "markdown", "# one\n", "s_1")

    def edit_from_another_process() -> None:
        # The race, made deterministic: another process edits after the copy, before the mark.
        p = _editor(tmp_path, meta.id, 1)
        out, _ = p.communicate("go\n", timeout=60)
        assert p.returncode == 0 and out.split()[-1] == "2"

    with pytest.raises(VersionChangedError) as info:
        publish(arts, lib, meta.id, after_copy=edit_from_another_process)
    assert info.value.is_retryable
    assert lib.items() == []
    assert sorted(p.name for p in (tmp_path / "library").iterdir()) == [
        "index.json",
        "library.lock",
    ]
    assert arts.get(meta.id).publishedVersion == 0
    again = publish(arts, lib, meta.id)  # the retry the error asks for
    assert again.artifact.publishedVersion == 2
    assert lib.path(again.item).read_text() == "edit 0 by pid"


def test_a_failed_compensation_is_reported_with_the_original_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    arts, lib = ArtifactStore(tmp_path), LibraryStore(tmp_path)
    meta = arts.create("Report", "markdown", "# one\n", "s_1")

    def broken_remove(item_id: str) -> object:
        raise OSError("disk gone")

    def race() -> None:
        arts.edit(meta.id, "# two\n")
        monkeypatch.setattr(lib, "remove", broken_remove)

    with pytest.raises(E.InternalError) as info:
        publish(arts, lib, meta.id, after_copy=race)
    msg = info.value.message
    assert "changed to v2" in msg and "could not be removed" in msg and "OSError" in msg
    assert isinstance(info.value.__cause__, VersionChangedError)
    assert str(tmp_path) not in msg


def test_removing_an_artifact_deletes_its_folder_only(tmp_path: Path) -> None:
    arts, lib = ArtifactStore(tmp_path), LibraryStore(tmp_path)
    meta = arts.create("Report", "markdown", "# one\n", "s_1")
    item = publish(arts, lib, meta.id).item
    arts.remove(meta.id)
    assert arts.list_all() == []
    assert [p.name for p in (tmp_path / "artifacts").iterdir()] == ["artifacts.lock"]
    assert lib.get(item.id).name == "Report.md"
    with pytest.raises(ArtifactNotFoundError):
        arts.remove(meta.id)


def test_a_version_file_artifact_json_does_not_list_is_overwritten(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    meta = store.create("Page", "markdown", "one", "s_1")
    folder = tmp_path / "artifacts" / meta.id
    # What a kill between writing v2 and replacing artifact.json leaves behind.
    (folder / "v2.md").write_text("never acknowledged")
    (folder / ".artifact.json.k1ll3d").write_text("{")
    (folder / ".v2.md.tmp0001").write_text("half")
    edited = store.edit(meta.id, "two")
    assert edited.version == 2 and store.content(edited) == "two"
    assert store.content(edited, 1) == "one"
    assert sorted(p.name for p in folder.iterdir()) == ["artifact.json", "v1.md", "v2.md"]


def test_recovery_cleans_half_made_and_half_removed_folders_once(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    root = tmp_path / "artifacts"
    kept = store.create("Kept", "markdown", "k", "s_1")
    half = root / "a_0123456789ab"  # a create killed before its artifact.json
    half.mkdir()
    (half / "v1.md").write_text("x")
    gone = root / f".removed-{kept.id}-beef"  # a remove killed before its rmtree
    gone.mkdir()
    (gone / "v1.md").write_text("x")
    (root / kept.id / "v3.md").write_text("uncommitted")
    ArtifactStore(tmp_path).recover()
    assert sorted(p.name for p in root.iterdir()) == sorted(["artifacts.lock", kept.id])
    assert sorted(p.name for p in (root / kept.id).iterdir()) == ["artifact.json", "v1.md"]
    assert store.content(store.get(kept.id)) == "k"


# One helper process imports ggd once and forks a fresh editor per round (a real process, killed
# for real, started in milliseconds; never a fork of the multi-threaded pytest process). Each
# editor acknowledges a version on stdout only after edit() returned (committed on disk).
ZYGOTE = r"""
import os, sys
from pathlib import Path
from ggd.capabilities.artifacts.artifact_store import ArtifactStore

home, artifact_id = Path(sys.argv[1]), sys.argv[2]
out = sys.stdout.fileno()
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "go":
        pid = os.fork()
        if pid == 0:
            store = ArtifactStore(home)
            os.write(out, b"pid %d\n" % os.getpid())
            i = 0
            while True:
                text = f"{cmd[1]}-{i}"
                meta = store.edit(artifact_id, text)
                os.write(out, f"ack {meta.version} {text}\n".encode())
                i += 1
    elif cmd[0] == "reap":  # the editor is dead: everything it wrote is before this line
        os.waitpid(int(cmd[1]), 0)
        os.write(out, b"reaped\n")
"""


class _Lines:
    """Lines from a pipe with a deadline: a hung helper fails the test, never hangs it."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buf = fd, b""

    def readline(self, timeout: float = 30.0) -> str:
        import select
        import time

        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError("the editor helper did not answer in time")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("the editor helper exited")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()


def test_random_kills_during_edits_keep_every_acknowledged_edit_and_stay_editable(
    tmp_path: Path,
) -> None:
    import random
    import signal
    import time

    rng = random.Random(30)
    store = ArtifactStore(tmp_path)
    meta = store.create("Killed", "markdown", "v1", "s_1")
    acked: dict[int, str] = {1: "v1"}
    helper = subprocess.Popen(
        [sys.executable, "-c", ZYGOTE, str(tmp_path), meta.id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert helper.stdin is not None and helper.stdout is not None
    lines = _Lines(helper.stdout.fileno())

    def ack(line: str) -> None:
        _, version, text = line.split()
        acked[int(version)] = text

    deadline = time.monotonic() + 10.0
    rounds = 0
    try:
        while rounds < 300 and time.monotonic() < deadline:
            rounds += 1
            helper.stdin.write(f"go r{rounds}\n")
            helper.stdin.flush()
            pid = int(lines.readline().split()[1])
            # Let a few edits through, then kill somewhere inside a later one.
            for _ in range(rng.randrange(1, 4)):
                ack(lines.readline())
            time.sleep(rng.random() * 0.002)  # where the kill lands, not a synchronisation
            os.kill(pid, signal.SIGKILL)
            helper.stdin.write(f"reap {pid}\n")
            helper.stdin.flush()
            while (line := lines.readline()) != "reaped":
                ack(line)  # acknowledged before the kill landed
            now = store.get(meta.id)
            assert now.version >= max(acked)
            for version, text in acked.items():
                assert store.content(now, version) == text
            # Always editable afterwards: the next edit gets the next number.
            after = store.edit(meta.id, f"parent-{rounds}")
            assert after.version == now.version + 1
            acked[after.version] = f"parent-{rounds}"
    finally:
        helper.stdin.close()
        helper.wait(30)
    assert rounds >= 20
