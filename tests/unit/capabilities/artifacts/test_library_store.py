"""The library store on real files: the streaming limit, collision-safe names, refused names."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ggd.capabilities.artifacts.library_store import MAX_ADD_BYTES, LibraryStore, TooLargeError
from ggd.protocol import errors as E

MiB = 1024 * 1024


class CountingZeros(io.RawIOBase):
    """An endless source that counts what was read and checks the temp file never passes the limit."""

    def __init__(self, folder: Path, limit: int) -> None:
        self.folder = folder
        self.limit = limit
        self.read_bytes = 0
        self.largest_part = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        assert 0 < size <= MiB, "the copy must ask for bounded chunks"
        parts = [p.stat().st_size for p in self.folder.glob(".add-*.part")]
        self.largest_part = max([self.largest_part, *parts])
        self.read_bytes += size
        return b"\0" * size


def _leftovers(lib: LibraryStore) -> list[str]:
    return sorted(
        p.name for p in lib.root.iterdir() if p.name not in ("index.json", "library.lock")
    )


def test_a_51_mib_add_is_refused_after_copying_at_most_the_limit(tmp_path: Path) -> None:
    lib = LibraryStore(tmp_path)
    src = CountingZeros(lib.root, MAX_ADD_BYTES)
    with pytest.raises(TooLargeError, match="50 MiB"):
        lib.add_stream("big.bin", src, "file")  # type: ignore[arg-type]
    assert src.read_bytes <= MAX_ADD_BYTES + 1, "read past the limit"
    assert src.largest_part <= MAX_ADD_BYTES, "wrote past the limit"
    assert src.read_bytes > 49 * MiB  # it really streamed; no stat decided it
    assert _leftovers(lib) == [] and lib.items() == []


def test_a_file_of_exactly_the_limit_is_added(tmp_path: Path) -> None:
    lib = LibraryStore(tmp_path, limit=3 * MiB)
    item = lib.add_bytes("exact.bin", b"\1" * (3 * MiB), "upload")
    assert item.size == 3 * MiB == lib.path(item).stat().st_size
    with pytest.raises(TooLargeError):
        lib.add_bytes("over.bin", b"\1" * (3 * MiB + 1), "upload")
    assert _leftovers(lib) == ["exact.bin"]


def test_case_colliding_names_get_a_safe_new_name(tmp_path: Path) -> None:
    lib = LibraryStore(tmp_path)
    first = lib.add_bytes("Report.md", b"one", "upload")
    second = lib.add_bytes("report.MD", b"two", "upload")
    third = lib.add_bytes("REPORT.md", b"three", "upload")
    plain = lib.add_bytes("README", b"r", "upload")
    plain2 = lib.add_bytes("readme", b"r2", "upload")
    assert [first.name, second.name, third.name] == ["Report.md", "report (2).MD", "REPORT (3).md"]
    assert [plain.name, plain2.name] == ["README", "readme (2)"]
    assert lib.path(first).read_bytes() == b"one"
    assert lib.path(second).read_bytes() == b"two"
    index = json.loads(lib.index_path.read_text())
    assert [i["name"] for i in index["items"]] == [
        "Report.md",
        "report (2).MD",
        "REPORT (3).md",
        "README",
        "readme (2)",
    ]
    assert set(index["items"][0]) == {"id", "name", "source", "size", "addedAt"}


@pytest.mark.parametrize(
    "name",
    ["index.json", "INDEX.JSON", "library.lock", "a/b.txt", "a\\b", "..", ".hidden", "", " "],
)
def test_reserved_and_path_like_names_are_refused(tmp_path: Path, name: str) -> None:
    lib = LibraryStore(tmp_path)
    with pytest.raises(E.InvalidParamsError, match="plain file name"):
        lib.add_bytes(name, b"x", "upload")
    assert not lib.root.exists() or _leftovers(lib) == []


def test_the_index_is_the_source_of_truth(tmp_path: Path) -> None:
    lib = LibraryStore(tmp_path)
    item = lib.add_bytes("notes.txt", b"hi", "upload")
    (lib.root / "stray.txt").write_bytes(b"not listed")
    assert [i.name for i in lib.items()] == ["notes.txt"]
    # A stray file still blocks its name on disk: the add gets a new one, nothing is overwritten.
    other = lib.add_bytes("Stray.txt", b"new", "upload")
    assert other.name == "Stray (2).txt"
    assert (lib.root / "stray.txt").read_bytes() == b"not listed"
    lib.remove(item.id)
    assert not (lib.root / "notes.txt").exists()
    assert [i.name for i in lib.items()] == ["Stray (2).txt"]
    assert (lib.root.stat().st_mode & 0o777) == 0o700
    assert (lib.index_path.stat().st_mode & 0o777) == 0o600
    assert (lib.path(other).stat().st_mode & 0o777) == 0o600
    with pytest.raises(E.InvalidParamsError, match="no library item"):
        lib.remove(item.id)


ADDER = """
import sys
from pathlib import Path
from ggd.capabilities.artifacts.library_store import LibraryStore
lib = LibraryStore(Path(sys.argv[1]))
sys.stdin.readline()
for i in range(int(sys.argv[2])):
    print(lib.add_bytes("Same.txt" if i % 2 else "same.TXT", sys.argv[3].encode(), "upload").name)
"""


def test_two_processes_adding_one_name_lose_no_entry_and_share_no_name(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[4]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ADDER, str(tmp_path), "20", tag],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=root,
        )
        for tag in ("a", "b")
    ]
    outs = [p.communicate("go\n", timeout=120)[0].split("\n") for p in procs]
    assert all(p.returncode == 0 for p in procs)
    names = [n for out in outs for n in out if n]
    assert len(names) == 40 and len({n.lower() for n in names}) == 40
    lib = LibraryStore(tmp_path)
    assert sorted(i.name for i in lib.items()) == sorted(names)  # no lost index update
    assert sorted(_leftovers(lib)) == sorted(names)


def test_an_add_sweeps_temp_files_a_dead_add_left(tmp_path: Path) -> None:
    import os
    import time

    lib = LibraryStore(tmp_path)
    lib.root.mkdir(parents=True)
    old, fresh = lib.root / ".add-dead.part", lib.root / ".add-busy.part"
    old.write_bytes(b"half")
    fresh.write_bytes(b"in progress")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    lib.add_bytes("a.txt", b"a", "upload")
    assert not old.exists() and fresh.exists()


def test_recovery_undoes_a_commit_killed_before_its_index_write(tmp_path: Path) -> None:
    import os

    lib = LibraryStore(tmp_path)
    kept = lib.add_bytes("kept.txt", b"k", "upload")
    # A commit killed after linking the part to its final name, before index.json named it.
    part = lib.root / ".add-0123456789abcdef.part"
    part.write_bytes(b"half-added")
    os.link(part, lib.root / "report.txt")
    # A commit killed after its index write, before its part was deleted.
    done = lib.root / ".add-fedcba9876543210.part"
    os.link(lib.path(kept), done)
    (lib.root / ".index.json.x1y2z3").write_bytes(b'{"items": [')  # a killed index rewrite
    (lib.root / "mine.txt").write_bytes(b"put here by hand")  # not provably ours: kept
    LibraryStore(tmp_path).recover()
    assert sorted(p.name for p in lib.root.iterdir()) == sorted(
        ["index.json", "library.lock", "kept.txt", "mine.txt"]
    )
    # The name the killed add had taken is free again, and the kept item is intact.
    again = lib.add_bytes("report.txt", b"new", "upload")
    assert again.name == "report.txt" and lib.path(again).read_bytes() == b"new"
    assert lib.path(kept).read_bytes() == b"k"
