"""What a knowledge base never indexes: credential locations, gg's own state, private keys.

A base's chunks go to the model through `kb_search` without an approval, so anything indexed is
as good as sent. The walk consults this module for every folder and file; the indexer checks
each file's content for a private key block before chunking it. The lists are documented in
docs/kb.md ("What is never indexed") and match by name at any depth, so a copy of a home
folder (a backup, a dotfiles repository) is covered as well as the home folder itself.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

# Folders whose whole content is credentials, keys or browser profiles (any depth).
DENY_DIRS = frozenset(
    ".ssh .gnupg .aws .azure .kube .docker .password-store .terraform.d .oci .wrangler .fly "
    ".ngrok2 .mozilla .thunderbird .vault .gcloud .pki .secrets".split()
)
# Two-level locations ("parent/child", any depth).
DENY_PAIRS = frozenset(
    {
        ".config/gh",
        ".config/gcloud",
        ".config/hub",
        ".config/op",
        ".config/rclone",
        ".config/doctl",
        ".config/github-copilot",
        ".config/google-chrome",
        ".config/chromium",
        ".config/ngrok",
        ".config/configstore",
        ".config/containers",
        ".config/git",
        ".local/share/keyrings",
        ".cargo/credentials",
        ".cargo/credentials.toml",
        ".m2/settings.xml",
        ".gradle/gradle.properties",
        ".composer/auth.json",
        ".gem/credentials",
    }
)
# Files that hold tokens, passwords or shell history (any depth).
DENY_FILES = frozenset(
    ".netrc _netrc .git-credentials .pgpass .npmrc .yarnrc .pypirc .vault-token .s3cfg .boto "
    ".authinfo .authinfo.gpg .htpasswd .env .envrc .bash_history .zsh_history .python_history "
    ".psql_history .mysql_history .sqlite_history .node_repl_history .lesshst .rediscli_history "
    "credentials.db access_tokens.db".split()
)
DENY_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".kdbx", ".ppk", ".gpg")
# ssh's own key names (id_rsa, id_ed25519_sk.pub, ...); other keys are caught by content.
_SSH_KEY_NAME = re.compile(r"^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:-cert)?(?:\.pub)?$")
# `.env.local`, `.env.production`: secrets; `.env.example` and friends are documentation.
_ENV_NAME = re.compile(r"^\.env\.(?!(?:example|sample|template|dist|defaults)$)[\w.-]+$")

# A private key block: its BEGIN line followed by key data (a line of base64), so a page that
# only names the format is still indexed. PEM (PKCS#1/#8, EC, DSA, encrypted), OpenSSH, PGP
# secret key blocks, and PuTTY's format.
_KEY_BLOCK = re.compile(
    rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----\r?\n"
    rb"(?:[A-Za-z-]+:[^\n]*\r?\n|\r?\n){0,6}"  # Proc-Type:, DEK-Info:, Version:, blank lines
    rb"[A-Za-z0-9+/=]{40,}"
)
_PUTTY_KEY = re.compile(rb"^PuTTY-User-Key-File-\d+: .*\n(?:.*\n){0,6}?Private-Lines: \d+", re.M)


def holds_private_key(data: bytes) -> bool:
    """Whether a file's bytes contain a private key (anywhere in them)."""
    return _KEY_BLOCK.search(data) is not None or _PUTTY_KEY.search(data) is not None


def denied_name(rel: str, is_dir: bool) -> bool:
    """Whether a folder or file at rel ('/'-separated) is a credential location by its name."""
    parts = rel.split("/")
    name = parts[-1]
    if len(parts) >= 2 and f"{parts[-2]}/{name}" in DENY_PAIRS:
        return True
    if is_dir:
        return name in DENY_DIRS
    return (
        name in DENY_FILES
        or name.lower().endswith(DENY_SUFFIXES)
        or _SSH_KEY_NAME.match(name) is not None
        or _ENV_NAME.match(name) is not None
    )


def denied_path(path: Path) -> bool:
    """Whether an absolute folder lies in (or is) a credential location, judged by its parts."""
    parts = path.parts
    for i, name in enumerate(parts):
        if name in DENY_DIRS or (i and f"{parts[i - 1]}/{name}" in DENY_PAIRS):
            return True
    return False


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


@dataclass(frozen=True)
class Private:
    """Folders never walked, by identity (device, inode): GG_HOME and the default ~/.gg.

    By identity, not by path, so a symlinked or differently spelled GG_HOME is still found.
    """

    folders: frozenset[tuple[int, int]] = field(default_factory=frozenset)

    @classmethod
    def of(cls, gg_home: Path) -> Private:
        """The folders of this daemon's GG_HOME and of the default one in the user's home."""
        ids = {_identity(gg_home)}
        try:
            ids.add(_identity(Path.home() / ".gg"))
        except RuntimeError:  # no HOME and no passwd entry: only GG_HOME is known
            pass
        return cls(frozenset(i for i in ids if i is not None))

    def covers(self, path: Path) -> bool:
        """Whether path is one of these folders or lies inside one (follows its parents)."""
        if not self.folders:
            return False
        for p in (path, *path.parents):
            if _identity(p) in self.folders:
                return True
        return False

    def is_private_dir(self, st: os.stat_result) -> bool:
        """Whether a folder met during the walk (its lstat) is one of these folders."""
        return (st.st_dev, st.st_ino) in self.folders
