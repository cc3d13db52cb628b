"""What a knowledge base never indexes: credential locations, GG_HOME, keys, links; deep trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ggd.capabilities.kb.index import index_folder
from ggd.capabilities.kb.private import Private, denied_name, holds_private_key
from ggd.capabilities.kb.store import KbError, Store
from ggd.capabilities.kb.walk import Skipped, read_regular, walk

# Made-up key material: the shape of a key (BEGIN line, then base64), not a real key.
PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)
ENCRYPTED = (
    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00FF\n\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n"
    "-----END RSA PRIVATE KEY-----\n"
)


def _tree(root: Path, outside: Path) -> None:
    (root / "notes.md").write_text("# Notes\n\nThe deploy runbook.\n")
    (root / "pem-format.md").write_text(
        "# Keys\n\nA key file starts with `-----BEGIN RSA PRIVATE KEY-----` and ...\n"
    )
    for d in (".ssh", ".aws", ".gnupg", "backup/.kube", ".config/gcloud"):
        (root / d).mkdir(parents=True)
    (root / ".ssh" / "config").write_text("Host x\n")
    (root / ".aws" / "credentials").write_text("aws_secret_access_key = abc\n")
    (root / "backup/.kube" / "config").write_text("token: abc\n")
    (root / ".config/gcloud" / "creds.json").write_text("{}\n")
    (root / ".config" / "app.toml").write_text("ok = true\n")
    (root / ".env").write_text("TOKEN=abc\n")
    (root / ".env.example").write_text("TOKEN=\n")
    (root / ".netrc").write_text("machine x password y\n")
    (root / "deploy.pem").write_text("x\n")
    (root / "id_ed25519").write_text("x\n")
    (root / "id_utils.py").write_text("def ident(): return 1\n")
    (root / "stash.txt").write_text("my backup key:\n" + PEM)
    (root / "old.txt").write_text(ENCRYPTED)
    (outside / "secret.txt").write_text("outside the folder\n")
    os.link(outside / "secret.txt", root / "linked.txt")
    (root / "escape.txt").symlink_to(outside / "secret.txt")


def test_credential_locations_keys_and_links_are_never_indexed(tmp_path: Path) -> None:
    home, root, outside = tmp_path / "gg", tmp_path / "user", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    _tree(root, outside)
    s = index_folder(home, "u", root, None)
    st = Store(home, "u")
    try:
        paths = sorted(p for (p,) in st.db.execute("SELECT path FROM files"))
        text = " ".join(t for (t,) in st.db.execute("SELECT text FROM chunks"))
    finally:
        st.close()
    assert paths == [".config/app.toml", ".env.example", "id_utils.py", "notes.md", "pem-format.md"]
    assert "PRIVATE KEY-----\n" not in text and "aws_secret" not in text
    # .ssh .aws .gnupg .kube gcloud; .env .netrc deploy.pem id_ed25519; stash.txt old.txt
    assert s.skipped["private"] == 11 and s.skipped["linked"] == 1


def test_a_key_already_indexed_leaves_the_index_when_seen_again(tmp_path: Path) -> None:
    home, root = tmp_path / "gg", tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nplain\n")
    (root / "b.txt").write_text("not a key yet\n")
    assert index_folder(home, "d", root, None).files == 2
    (root / "b.txt").write_text(PEM)
    again = index_folder(home, "d", root, None)
    assert again.deleted == 1 and again.files == 1 and again.skipped["private"] == 1


def test_gg_home_inside_the_folder_is_skipped_and_never_the_folder_itself(
    tmp_path: Path,
) -> None:
    home = tmp_path / "state"
    (tmp_path / "doc.md").write_text("# Doc\n\nhello\n")
    home.mkdir()
    (home / "config.json").write_text('{"token": "abc"}\n')
    s = index_folder(home, "all", tmp_path, None)  # GG_HOME (and the base itself) inside
    st = Store(home, "all")
    try:
        paths = [p for (p,) in st.db.execute("SELECT path FROM files")]
    finally:
        st.close()
    assert paths == ["doc.md"] and s.skipped["private"] == 1
    for folder in (home, home / "kb", tmp_path / "x" / ".ssh"):
        folder.mkdir(parents=True, exist_ok=True)
        with pytest.raises(KbError, match="credentials or gg's own state"):
            index_folder(home, "no", folder, None)
    # GG_HOME through a symlink is still GG_HOME (matched by identity, not by spelling).
    (tmp_path / "alias").symlink_to(home)
    assert Private.of(tmp_path / "alias").covers(home / "kb")


def test_a_1500_level_deep_tree_is_indexed_without_recursion(tmp_path: Path) -> None:
    home, root = tmp_path / "gg", tmp_path / "deep"
    path = str(root)
    os.mkdir(path)
    try:
        for _ in range(1500):  # os.makedirs recurses in Python itself: build level by level
            os.mkdir(path + "/d")
            path += "/d"
        Path(path, "bottom.md").write_text("# Bottom\n\nfound at the bottom\n")
        (root / "top.md").write_text("# Top\n\nat the top\n")
        s = index_folder(home, "deep", root, None)
        assert s.files == 2
        rels = [rel for rel, _ in walk(root, Skipped())]
        assert rels[0].count("/") == 1500 and rels[1] == "top.md"  # sorted, depth first
    finally:  # shutil.rmtree (pytest's cleanup) recurses too: take the tree down level by level
        Path(path, "bottom.md").unlink(missing_ok=True)
        while path != str(root):
            os.rmdir(path)
            path = path[: -len("/d")]


def test_read_regular_refuses_a_name_swapped_for_a_link_after_the_walk(tmp_path: Path) -> None:
    outside = tmp_path / "secret"
    outside.write_text("outside")
    name = tmp_path / "note.md"
    name.symlink_to(outside)
    assert read_regular(name) is None
    name.unlink()
    os.link(outside, name)
    assert read_regular(name) is None
    name.unlink()
    name.write_text("mine")
    assert read_regular(name) == b"mine"


@pytest.mark.parametrize(
    ("rel", "is_dir", "denied"),
    [
        (".ssh", True, True),
        ("a/b/.gnupg", True, True),
        (".config/gh", True, True),
        (".config", True, False),
        ("src", True, False),
        (".env", False, True),
        (".env.production", False, True),
        (".env.example", False, False),
        ("certs/server.KEY", False, True),
        ("id_rsa.pub", False, True),
        ("id_card.md", False, False),
        (".cargo/credentials.toml", False, True),
        (".bash_history", False, True),
        ("README.md", False, False),
    ],
)
def test_denied_names(rel: str, is_dir: bool, denied: bool) -> None:
    assert denied_name(rel, is_dir) is denied


def test_key_detection_needs_key_data_after_the_begin_line() -> None:
    assert holds_private_key(PEM.encode()) and holds_private_key(ENCRYPTED.encode())
    assert holds_private_key(b"-----BEGIN PRIVATE KEY-----\r\n" + b"A" * 64 + b"\r\n")
    assert holds_private_key(b"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF" + b"x" * 60)
    putty = b"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\nAA\nAA\n"
    assert holds_private_key(putty + b"Private-Lines: 1\nAAAA\n")
    assert not holds_private_key(b"starts with -----BEGIN RSA PRIVATE KEY----- then data")
    assert not holds_private_key(b"-----BEGIN PUBLIC KEY-----\n" + b"A" * 64)
