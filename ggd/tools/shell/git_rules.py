"""Classifier rules for git: read-only subcommands, `git -c` and config keys that run programs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ggd.tools.shell.lex import Word
from ggd.tools.shell.paths import ShellState
from ggd.tools.shell.verdict import Verdict, danger, normal, ro, worst

if TYPE_CHECKING:
    from ggd.tools.shell.classifier import Analyzer

_READ_SUBCOMMANDS = {
    "status", "log", "diff", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
    "rev-list", "ls-files", "ls-tree", "cat-file", "grep", "whatchanged", "merge-base", "name-rev",
    "count-objects", "for-each-ref", "show-ref", "version", "help", "check-ignore", "check-attr",
    "cherry", "range-diff", "diff-tree", "diff-files", "diff-index", "show-branch", "var",
    "verify-commit", "verify-tag",
}  # fmt: skip
# Options of the read subcommands known to only change what is shown (the part before `=`).
_SAFE_OPTS = set(
    """
--oneline --graph --decorate --no-decorate --stat --shortstat --numstat --name-only --name-status
--summary --patch --no-patch --raw --format --pretty --abbrev-commit --no-abbrev-commit --abbrev
--all --branches --tags --remotes --since --until --after --before --author --committer --grep
--all-match --invert-grep --regexp-ignore-case --merges --no-merges --first-parent --reverse
--follow --date --relative-date --max-count --skip --topo-order --date-order --author-date-order
--left-right --cherry-pick --cherry-mark --boundary --ancestry-path --simplify-by-decoration
--full-history --dense --sparse --no-walk --do-walk --color --no-color --word-diff
--word-diff-regex --color-words --color-moved --cached --staged --no-index --exit-code --quiet
--ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-space-at-eol
--ignore-cr-at-eol --unified --function-context --minimal --patience --histogram --diff-algorithm
--find-renames --find-copies --find-copies-harder --no-renames --diff-filter --relative
--no-relative --src-prefix --dst-prefix --no-prefix --full-index --binary --check --text
--merge-base --short --branch --porcelain --long --verbose --untracked-files --ignored
--ignore-submodules --show-stash --ahead-behind --no-ahead-behind --renames --column --no-column
--null --show-signature --notes --no-notes --show-notes --expand-tabs --no-expand-tabs
--show-current --list --contains --no-contains --merged --no-merged --points-at --sort --remote
--show-toplevel --show-prefix --show-cdup --git-dir --absolute-git-dir --is-inside-work-tree
--is-bare-repository --abbrev-ref --symbolic-full-name --verify --short --show-object-format
--git-common-dir --show-superproject-working-tree --count --objects --cached --deleted
--modified --others --exclude-standard --exclude --exclude-from --full-name --recurse-submodules
--stage --unmerged --killed --directory --no-empty-directory --error-unmatch --name-only
--long --tags --always --dirty --broken --exact-match --first-parent --match --candidates
--line-porcelain --incremental --show-email --show-name --show-number --root --reverse -L
--ignore-rev --ignore-revs-file --porcelain --score-debug --contents --numbered --summary
--email --group --heads --refs --dereference --hash --ignore-case --word-regexp --invert-match
--line-number --files-with-matches --files-without-match --count --max-depth --recursive
--extended-regexp --basic-regexp --fixed-strings --perl-regexp --and --or --not --break
--heading --show-function --context --after-context --before-context --threads --untracked
--no-index --full-name --only-matching --column --function-context --no-recursive -e -n -l -L -c
-h -H -i -I -v -w -E -F -G -P -r -s -z -p -u -q -a -b -t -d -m -M -C -B -A -W -S -U -N -R
--name --tree --diff-merges --cc --combined-all-paths --remerge-diff --follow --show-linear-break
--encoding --mailmap --no-mailmap --use-mailmap --log-size --no-max-parents --max-parents
--min-parents --in-commit-order --single-worktree --exclude-first-parent-only --since-as-filter
--format --indent-heuristic --no-indent-heuristic --anchored --default-prefix --inter-hunk-context
--output-indicator-new --output-indicator-old --output-indicator-context --ws-error-highlight
--line-prefix --ita-invisible-in-index --ita-visible-in-index --stat-width --stat-name-width
--stat-count --stat-graph-width --dirstat --cumulative --dirstat-by-file --compact-summary
--patch-with-stat --patch-with-raw --irreversible-delete --pickaxe-all --pickaxe-regex -O
--batch --batch-check --batch-all-objects --buffer -e -t -s -p --allow-unknown-type
--full-tree --name-only --long --object-only --format --abbrev --help --version --left-only
--right-only --creation-factor --no-dual-color --topics --more --sha1-name --sparse --independent
""".split()
)
# Options that make a read subcommand run another program or write a file.
_EXEC_OPT_RE = re.compile(
    r"^(?:-O|--open-files-in-pager|--upload-pack|--exec|--output|--ext-diff|--textconv"
    r"|--filters|--paginate|--receive-pack|--pager)"
)
# Config keys whose value git runs as a program (or that pull in other config).
_EXEC_KEY_RE = re.compile(
    r"^(core\.(sshcommand|pager|editor|fsmonitor|hookspath|gitproxy|askpass|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)"
    r"|merge\..+\.driver|(diff|merge)tool\..+\.(cmd|path)|gpg\.(.+\.)?program|pager\..+"
    r"|remote\..+\.(uploadpack|receivepack|proxy)|credential\.(.+\.)?helper|protocol\..*allow"
    r"|uploadpack\.packobjectshook|include\.path|includeif\..+\.path|core\.sshcommand|ssh\.variant)$"
)
_GLOBAL_VALUED = {"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"}
_TAG_VALUED = {"--sort", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}
_TAG_VALUED |= {"--format", "--color", "--column"}
_TAG_LIST = _TAG_VALUED | {"-l", "--list", "-n", "--ignore-case", "-i", "--omit-empty"}
_GLOBAL_FLAGS = {"--no-pager", "--bare", "--no-replace-objects", "--literal-pathspecs"}
_GLOBAL_FLAGS |= {"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "-P"}
_GLOBAL_FLAGS |= {"--no-optional-locks", "--version", "--help", "--no-advice", "-h"}
_BRANCH_WRITE = {"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-u", "-f"}
_BRANCH_WRITE |= {
    "--set-upstream-to",
    "--unset-upstream",
    "--edit-description",
    "--force",
    "--track",
}
_BRANCH_VALUED = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort"}
_BRANCH_VALUED |= {"--format"}


def config_key_risk(assignment: str) -> Verdict:
    """Risk of setting `key=value` through `git -c` or `git config`."""
    key, _, value = assignment.partition("=")
    key = key.strip().lower()
    if _EXEC_KEY_RE.match(key):
        return danger(f"git config `{key}` makes git run a program")
    if key.startswith("alias.") and value.lstrip().startswith("!"):
        return danger(f"git alias `{key}` runs a shell command")
    return normal(f"git -c sets `{key or '?'}`")


def rule_git(an: Analyzer, name: str, args: list[Word], st: ShellState, depth: int) -> Verdict:
    """git: listing subcommands are read-only; everything else normal; exec configs dangerous."""
    verdicts: list[Verdict] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "-c":
            verdicts.append(config_key_risk(args[i + 1].text if i + 1 < len(args) else ""))
            i += 2
        elif t in _GLOBAL_VALUED:
            i += 2
        elif t.startswith("--config-env"):
            spec = (
                t.split("=", 1)[1] if "=" in t else (args[i + 1].text if i + 1 < len(args) else "")
            )
            verdicts.append(config_key_risk(spec.split("=", 1)[0] + "=x"))
            i += 1 if "=" in t else 2
        elif t.startswith("--exec-path="):
            verdicts.append(danger(f"git {t.split('=')[0]} changes which programs git runs"))
            i += 1
        elif t in ("-p", "--paginate"):
            verdicts.append(normal("`git -p` runs a pager"))
            i += 1
        elif t.startswith("-"):
            if t not in _GLOBAL_FLAGS and not t.startswith(tuple(f"{v}=" for v in _GLOBAL_VALUED)):
                verdicts.append(
                    normal(f"git option `{t.split('=')[0]}` is not known to be harmless")
                )
            i += 1
        else:
            break
    if i >= len(args):
        return worst([*verdicts, ro("git")])
    sub, rest = args[i].text, args[i + 1 :]
    verdicts.append(_subcommand(an, sub, rest, st))
    return worst(verdicts)


def _subcommand(an: Analyzer, sub: str, rest: list[Word], st: ShellState) -> Verdict:
    texts = [w.text for w in rest]
    flags = [t for t in texts if t.startswith("-")]
    label = f"git {sub}"
    for t in texts:
        if t.startswith(("--upload-pack", "--receive-pack", "--exec=")) or (
            sub in ("clone", "fetch", "pull", "archive") and t == "-u"
        ):
            return danger(f"`{label} {t.split('=')[0]}` runs another program")
    if sub == "help" and any(t not in ("-a", "-g", "--all", "--guides") for t in flags):
        return normal("`git help` with options opens a browser, info or man")
    if sub == "ls-remote":
        if any(_EXEC_OPT_RE.match(t) or t == "-u" for t in texts):
            return danger("`git ls-remote --upload-pack` runs another program")
        return normal("`git ls-remote` talks to a remote")
    if sub in _READ_SUBCOMMANDS:
        return _reading(an, sub, rest, st)
    listed = _listing(sub, texts, flags)
    if listed is not None:
        return listed
    return normal(f"`{label}` changes the repository or talks to a remote")


def _reading(an: Analyzer, sub: str, rest: list[Word], st: ShellState) -> Verdict:
    """A subcommand that reads (log, diff, grep...): read-only unless an option writes a file
    or runs a program."""
    texts = [w.text for w in rest]
    label = f"git {sub}"
    for k, t in enumerate(texts):
        if t == "--":
            break
        if t == "--output" and k + 1 < len(rest):
            return an.write_target(rest[k + 1], st, f"{label} --output")
        if t.startswith("--output="):
            return an.write_target(Word(t.split("=", 1)[1]), st, f"{label} --output")
        if sub == "grep" and (t.startswith("-O") or t.startswith("--open-files-in-pager")):
            return danger(f"`{label} {t[:24]}` runs another program")
        if t.startswith("--upload-pack") or t.startswith("--exec"):
            return danger(f"`{label} {t.split('=')[0]}` runs another program")
        if (
            t.startswith("-")
            and _EXEC_OPT_RE.match(t)
            and not (sub != "grep" and t[:2] == "-O" and len(t) > 2)
        ):
            return normal(f"`{label} {t.split('=')[0]}` runs another program")
        if t.startswith("-") and t != "-" and not _safe_opt(t):
            return normal(f"`{label}` option `{t.split('=')[0]}` is not known to be read-only")
    return ro(label)


def _listing(sub: str, texts: list[str], flags: list[str]) -> Verdict | None:
    """Read-only when a subcommand that may also write (branch, tag, stash, config...) only
    lists or reads here; None when it may write."""
    label = f"git {sub}"
    if sub == "branch":
        positional = _positionals(texts, _BRANCH_VALUED)
        if not set(flags) & _BRANCH_WRITE and (not positional or {"--list", "-l"} & set(flags)):
            return ro(label)
    elif sub == "tag":
        only_lists = all(
            f.split("=", 1)[0] in _TAG_LIST or re.fullmatch(r"-n\d*", f) for f in flags
        )
        if not texts or (
            {"-l", "--list"} & set(flags) and not set(flags) & {"-d", "-a", "-s", "-f"}
        ):
            return ro(label)
        if only_lists and not _positionals(texts, _TAG_VALUED):
            return ro(label)
    elif sub in ("remote", "stash", "worktree", "notes", "submodule", "reflog"):
        listing = {
            "remote": {"-v", "--verbose", "show", "get-url"},
            "stash": {"list", "show"},
            "worktree": {"list"},
            "notes": {"list", "show"},
            "submodule": {"status", "summary"},
            "reflog": {"show", "exists"},
        }[sub]
        # Bare `git stash` pushes a stash; the others list when given no arguments.
        if (not texts and sub != "stash") or (texts and texts[0] in listing):
            return ro(label)
    elif sub == "config":
        positional = _positionals(texts, {"--file", "-f", "--blob", "--type", "--default"})
        reading = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"}
        if set(flags) & reading or (len(positional) == 1 and not set(flags) & {"--unset"}):
            return ro(label)
        if len(positional) >= 2:
            return worst([config_key_risk(f"{positional[0]}={positional[1]}"), normal(label)])
    return None


def _safe_opt(t: str) -> bool:
    """A read subcommand's option that only changes what is shown."""
    if re.fullmatch(r"-[0-9]+|-[nUMCBAl][0-9]+|-[LSG].*|-[0-9]*[a-zA-Z]", t) and t[:2] != "-O":
        return t[:2] in _SAFE_OPTS or t[1:].isdigit() or t[:2] in ("-L", "-S", "-G")
    if t.startswith("--"):
        return t.split("=", 1)[0] in _SAFE_OPTS or t.startswith("--no-")
    return all(f"-{c}" in _SAFE_OPTS for c in t[1:])


def _positionals(texts: list[str], valued: set[str]) -> list[str]:
    out, skip = [], False
    for t in texts:
        if skip:
            skip = False
        elif t in valued:
            skip = True
        elif not t.startswith("-"):
            out.append(t)
    return out
