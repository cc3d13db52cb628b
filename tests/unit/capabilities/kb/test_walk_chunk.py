"""The walk (skips, .gitignore subset) and structure-aware chunking, on real files."""

from __future__ import annotations

import itertools
from pathlib import Path

from ggd.capabilities.kb.chunk import OVERLAP, TARGET, chunk_text
from ggd.capabilities.kb.walk import MAX_BYTES, Skipped, ignored, parse_gitignore, walk


def _tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, body in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(body if isinstance(body, bytes) else body.encode())


def test_walk_skips_vcs_dependency_build_binaries_big_files_and_gitignored(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "README.md": "# hi\n",
            "src/app.py": "def f():\n    return 1\n",
            "src/gen/out.py": "x = 1\n",
            "src/keep.log": "kept by negation\n",
            "src/debug.log": "noise\n",
            "docs/guide.md": "# guide\n",
            "docs/build/page.md": "# built\n",
            ".git/config": "[core]\n",
            "node_modules/x/index.js": "x\n",
            "dist/bundle.js": "x\n",
            "pkg.egg-info/PKG-INFO": "x\n",
            "logo.png": b"\x89PNG....",
            "big.txt": "a" * (MAX_BYTES + 1),
            "tmp/scratch.md": "# scratch\n",
            ".gitignore": "*.log\n!keep.log\n/tmp/\nsrc/gen/\n",
        },
    )
    sk = Skipped()
    got = [rel for rel, _ in walk(tmp_path, sk)]
    assert got == ["README.md", "docs/guide.md", "src/app.py", "src/keep.log"]
    assert sk.binary == 1 and sk.too_big == 1 and sk.ignored >= 5


def test_nested_gitignore_applies_below_its_folder_only(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {"a/.gitignore": "secret.md\n", "a/secret.md": "x", "b/secret.md": "y", "a/ok.md": "z"},
    )
    assert [rel for rel, _ in walk(tmp_path)] == ["a/ok.md", "b/secret.md"]


def test_gitignore_patterns() -> None:
    rules = parse_gitignore("**/cache/\ndocs/*.tmp\n\\#literal\n# comment\nfoo?.txt\n", "")
    assert ignored("x/y/cache", True, rules)
    assert not ignored("x/y/cache", False, rules)  # dir-only pattern, a file of that name stays
    assert ignored("docs/a.tmp", False, rules)
    assert not ignored("docs/sub/a.tmp", False, rules)  # '*' does not cross '/'
    assert ignored("#literal", False, rules)
    assert ignored("deep/foo1.txt", False, rules) and not ignored("foo12.txt", False, rules)


def test_markdown_chunks_follow_headings_with_heading_paths_and_true_lines() -> None:
    text = "intro line\n\n# Title\n\nabout\n\n## Install\n\npip install x\n\n```\n# not a heading\n```\n\n## Use\n\nrun it\n"
    chunks = chunk_text(text, "guide.md")
    assert [c.heading for c in chunks] == ["", "Title", "Title > Install", "Title > Use"]
    lines = text.splitlines()
    for c in chunks:
        assert "\n".join(lines[c.start - 1 : c.end]) == c.text
    assert "# not a heading" in chunks[2].text


def test_python_chunks_by_top_level_definitions() -> None:
    text = (
        "import os\n\nCONST = 1\n\n\n@decorator\ndef alpha(x):\n    return x\n\n\n"
        "class Beta:\n    def m(self):\n        pass\n\n\nprint('tail')\n"
    )
    chunks = chunk_text(text, "mod.py")
    assert [c.heading for c in chunks] == ["", "def alpha", "class Beta", ""]
    assert chunks[1].text.startswith("@decorator") and chunks[1].start == 6
    assert chunks[2].text.startswith("class Beta") and chunks[2].end == 13


def test_long_sections_split_near_target_with_overlap() -> None:
    body = "\n".join(f"line {i} " + "word " * 12 for i in range(200))
    chunks = chunk_text("# Big\n" + body, "big.md")
    assert len(chunks) > 5
    assert all(len(c.text) <= TARGET for c in chunks)
    for a, b in itertools.pairwise(chunks):
        assert b.start <= a.end  # consecutive windows share lines
        shared = "\n".join(a.text.splitlines()[b.start - a.start :])
        assert 0 < len(shared) <= OVERLAP + 80


def test_plain_text_packs_blank_line_blocks() -> None:
    blocks = [f"para {i}\n" + "text " * 40 for i in range(12)]
    text = "\n\n".join(blocks)
    chunks = chunk_text(text, "notes.cfg")
    assert 2 <= len(chunks) < 12
    lines = text.splitlines()
    for c in chunks:
        assert "\n".join(lines[c.start - 1 : c.end]) == c.text


def test_rst_headings() -> None:
    text = "Title\n=====\n\nintro\n\nPart\n----\n\nbody\n"
    assert [c.heading for c in chunk_text(text, "x.rst")] == ["Title", "Title > Part"]
