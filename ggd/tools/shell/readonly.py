"""The read-only allow-list: programs paired with the options known to keep them read-only.

A command is read-only only when its program is listed here and every option it is given is one
this table knows to be safe; any other option (`sort -o`, `rg --pre`, `tree -o`, an abbreviation,
a flag added in a newer release) makes it `normal`. Fail closed: the table is what we checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ggd.tools.shell.lex import Word
from ggd.tools.shell.system import ps_shows_environment


@dataclass(frozen=True)
class Spec:
    """Safe options of one program: flag letters, letters taking a value, long options."""

    short: str = ""
    short_val: str = ""
    long: frozenset[str] = field(default_factory=frozenset)
    long_val: frozenset[str] = field(default_factory=frozenset)
    numeric: bool = False  # `-20` (head, tail) is an option
    any_args: bool = False  # every word is data (echo): nothing is an option
    no_plus: bool = False  # `+cmd` words run commands (less, more)


def _s(
    short: str = "",
    short_val: str = "",
    long: str = "",
    long_val: str = "",
    numeric: bool = False,
    any_args: bool = False,
    no_plus: bool = False,
) -> Spec:
    return Spec(
        short, short_val, frozenset(long.split()), frozenset(long_val.split()), numeric, any_args,
        no_plus,
    )  # fmt: skip


_GREP_LONG = (
    "--extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case "
    "--word-regexp --line-regexp --no-messages --invert-match --version --help --count --color "
    "--colour --files-without-match --files-with-matches --only-matching --quiet --silent "
    "--byte-offset --with-filename --no-filename --line-number --initial-tab --unix-byte-offsets "
    "--null --null-data --text --recursive --dereference-recursive --line-buffered --binary "
    "--no-line-number"
)
_GREP_VAL = (
    "--regexp --file --max-count --label --after-context --before-context --context --binary-files "
    "--devices --directories --exclude --exclude-from --exclude-dir --include --color --colour"
)
_RG_LONG = (
    "--case-sensitive --ignore-case --smart-case --fixed-strings --word-regexp --line-regexp "
    "--invert-match --count --count-matches --files-with-matches --files-without-match --files "
    "--only-matching --line-number --no-line-number --with-filename --no-filename --heading "
    "--no-heading --hidden --no-hidden --no-ignore --no-ignore-vcs --no-ignore-dot "
    "--no-ignore-parent --no-ignore-global --no-ignore-exclude --no-ignore-files --follow --text "
    "--binary --json --vimgrep --column --byte-offset --trim --multiline --multiline-dotall "
    "--null --null-data --pcre2 --no-pcre2 --crlf --quiet --stats --sort-files --unrestricted "
    "--no-messages --no-config --pretty --passthru --passthrough --one-file-system --type-list "
    "--debug --trace --version --help --no-unicode --auto-hybrid-regex --engine --line-buffered "
    "--block-buffered --no-require-git --include-zero --invert-match --max-columns-preview "
    "--no-column --no-filename --glob-case-insensitive --color --colors"
)
_RG_VAL = (
    "--regexp --file --glob --iglob --type --type-not --type-add --type-clear --max-count "
    "--max-depth --maxdepth --max-filesize --max-columns --after-context --before-context --context "
    "--color --colors --sort --sortr --replace --threads --encoding --engine --path-separator "
    "--context-separator --field-match-separator --field-context-separator --ignore-file "
    "--dfa-size-limit --regex-size-limit --max-columns-preview"
)
_LS_SHORT = "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1"
_LS_LONG = (
    "--all --almost-all --author --escape --ignore-backups --directory --classify --file-type "
    "--no-group --human-readable --si --dereference-command-line "
    "--dereference-command-line-symlink-to-dir --inode --dereference --numeric-uid-gid --literal "
    "--hide-control-chars --show-control-chars --quote-name --reverse --recursive --size "
    "--group-directories-first --context --help --version --full-time --zero"
)
_LS_VAL = (
    "--block-size --color --format --hide --hyperlink --indicator-style --ignore --quoting-style "
    "--sort --time --time-style --tabsize --width"
)
_SUMS = _s("bctwz", "", "--binary --check --tag --text --zero --ignore-missing --quiet --status "
           "--strict --warn --help --version", "--length")  # fmt: skip
_NOTHING = _s(long="--help --version")

SPECS: dict[str, Spec] = {
    "ls": _s(_LS_SHORT, "ITw", _LS_LONG, _LS_VAL),
    "dir": _s(_LS_SHORT, "ITw", _LS_LONG, _LS_VAL),
    "cat": _s("AbeEnstTuv", "", "--show-all --number-nonblank --number --squeeze-blank "
              "--show-tabs --show-nonprinting --show-ends --help --version"),
    "head": _s("qvz", "nc", "--quiet --silent --verbose --zero-terminated --help --version",
               "--lines --bytes", numeric=True),
    "tail": _s("fFqvz", "ncs", "--follow --quiet --silent --verbose --zero-terminated --retry "
               "--help --version", "--lines --bytes --sleep-interval --pid --max-unchanged-stats "
               "--follow", numeric=True),
    "wc": _s("clmwL", "", "--bytes --chars --lines --words --max-line-length --help --version",
             "--files0-from --total"),
    "grep": _s("EFGPiywxvcLloqsbHhnTZzraRUIu", "efmABCDd", _GREP_LONG, _GREP_VAL, numeric=True),
    "egrep": _s("EFGPiywxvcLloqsbHhnTZzraRUIu", "efmABCDd", _GREP_LONG, _GREP_VAL, numeric=True),
    "fgrep": _s("EFGPiywxvcLloqsbHhnTZzraRUIu", "efmABCDd", _GREP_LONG, _GREP_VAL, numeric=True),
    "zgrep": _s("EFGPiywxvcLloqsbHhnTZzraRUIu", "efmABCDd", _GREP_LONG, _GREP_VAL, numeric=True),
    "rg": _s("FiSwxvcloqnNHIsLa.uUPb0", "egtTmdABCMrjE", _RG_LONG, _RG_VAL, numeric=True),
    "ag": _s("iswvcloQGHaufUtz", "ABCGm", "--hidden --literal --ignore-case --case-sensitive "
             "--smart-case --count --files-with-matches --files-without-matches "
             "--filename --nofilename --heading --noheading --nocolor --color --column "
             "--nobreak --break --numbers --nonumbers --follow --unrestricted --silent --stats",
             "--ignore --ignore-dir --file-search-regex --max-count --depth --after --before "
             "--context"),
    "ack": _s("iIwvcloHhnQfgks", "ABCm", "--ignore-case --smart-case --word-regexp --invert-match "
              "--count --literal --nocolor --color --column --noheading --heading --nofilter "
              "--noenv --nopager --files-with-matches --files-without-matches --with-filename "
              "--no-filename --sort-files", "--type --ignore-dir --max-count --after-context "
              "--before-context --context"),
    "pwd": _s("LP"),
    "echo": _s(any_args=True),
    "which": _s("as", "", "--all"),
    "whereis": _s("bmsulf", "BMS"),
    "type": _s("afptP"),
    "stat": _s("LftF", "c", "--dereference --file-system --terse --help --version",
               "--format --printf --cached"),
    "file": _s("bcdEhiklLNnprsSzZ0", "eFfmP", "--brief --dereference --no-dereference --mime "
               "--mime-type --mime-encoding --keep-going --raw --special-files --uncompress "
               "--no-pad --no-buffer --print0 --preserve-date --help --version --extension "
               "--apple", "--exclude --separator --files-from --magic-file --parameter"),
    "du": _s("0abcDhHklLmPSsx", "BdtX", "--all --apparent-size --bytes --total --dereference-args "
             "--human-readable --inodes --dereference --no-dereference --count-links "
             "--separate-dirs --si --summarize --one-file-system --null --time --help --version",
             "--block-size --max-depth --threshold --time --time-style --exclude --exclude-from "
             "--files0-from"),
    "df": _s("ahHiklPTvx", "Bt", "--all --human-readable --si --inodes --local --portability "
             "--print-type --total --no-sync --sync --help --version", "--block-size --output "
             "--type --exclude-type"),
    "pgrep": _s("lacfinovxwrAdF", "gGPsStuUd", "--list-name --list-full --count --full "
                "--inverse --newest --oldest --exact --ignore-case --lightweight", "--delimiter "
                "--pgroup --group --parent --session --terminal --euid --uid --pidfile --ns "
                "--nslist"),
    "cut": _s("nsz", "bcdf", "--complement --only-delimited --zero-terminated --help --version",
              "--bytes --characters --delimiter --fields --output-delimiter"),
    "tr": _s("cCdst", "", "--complement --delete --squeeze-repeats --truncate-set1 --help"),
    "true": _s(any_args=True),
    "false": _s(any_args=True),
    ":": _s(any_args=True),
    "basename": _s("asz", "s", "--multiple --zero --help --version", "--suffix"),
    "dirname": _s("z", "", "--zero --help --version"),
    "realpath": _s("eLmPqsz", "", "--canonicalize-existing --canonicalize-missing --logical "
                   "--physical --quiet --strip --no-symlinks --zero --help --version",
                   "--relative-to --relative-base"),
    "readlink": _s("efmnqsvz", "", "--canonicalize --canonicalize-existing "
                   "--canonicalize-missing --no-newline --quiet --silent --verbose --zero"),
    "id": _s("aZgGnruz", "", "--context --group --groups --name --real --user --zero --help"),
    "whoami": _NOTHING,
    "groups": _NOTHING,
    "logname": _NOTHING,
    "users": _NOTHING,
    "uname": _s("asnrvmpio", "", "--all --kernel-name --nodename --kernel-release "
                "--kernel-version --machine --processor --hardware-platform --operating-system"),
    "arch": _NOTHING,
    "lsb_release": _s("vidrcas", "", "--version --id --description --release --codename --all "
                      "--short --help"),
    "tree": _s("adlfxLPIRCDFpugshJtvUrNQSn", "LPIH", "--noreport --dirsfirst --filelimit --du "
               "--prune --matchdirs --ignore-case --si --charset --sort --gitignore --info "
               "--help --version", "--filelimit --timefmt --charset --sort"),
    "diff": _s("iEZbwBIqsecuynNtTrpaydFx", "CUXSFI", "--brief --report-identical-files "
               "--normal --unified --context --ed --rcs --side-by-side --left-column "
               "--suppress-common-lines --show-c-function --expand-tabs --initial-tab "
               "--suppress-blank-empty --new-file --unidirectional-new-file --ignore-case "
               "--ignore-file-name-case --no-ignore-file-name-case --ignore-tab-expansion "
               "--ignore-trailing-space --ignore-space-change --ignore-all-space "
               "--ignore-blank-lines --text --strip-trailing-cr --recursive --minimal "
               "--speed-large-files --no-dereference --color --help --version", "--unified "
               "--context --width --show-function-line --label --exclude --exclude-from "
               "--starting-file --from-file --to-file --ignore-matching-lines --color "
               "--line-format --old-line-format --new-line-format --unchanged-line-format "
               "--old-group-format --new-group-format --changed-group-format "
               "--unchanged-group-format --horizon-lines --palette", numeric=True),
    "cmp": _s("blsz", "in", "--print-bytes --verbose --quiet --silent --zero", "--ignore-initial "
              "--bytes"),
    "comm": _s("123iz", "", "--check-order --nocheck-order --total --zero-terminated",
               "--output-delimiter"),
    "md5sum": _SUMS, "sha1sum": _SUMS, "sha224sum": _SUMS, "sha256sum": _SUMS,
    "sha384sum": _SUMS, "sha512sum": _SUMS, "b2sum": _s("bctwz", "l", "--binary --check --tag "
                                                        "--text --zero --quiet", "--length"),
    "cksum": _s("abclrtwz", "", "--binary --check --tag --text --untagged --raw --zero",
                "--algorithm --length"),
    "sum": _s("rs", "", "--sysv"),
    "od": _s("bcdfilosvx", "AjNSwt", "--output-duplicates --traditional", "--address-radix "
             "--skip-bytes --read-bytes --strings --format --width --endian"),
    "hexdump": _s("bcCdovx", "enNsf", "--canonical"),
    "strings": _s("afwd", "nteT", "--all --data --print-file-name --include-all-whitespace",
                  "--bytes --radix --encoding --output-separator"),
    "nl": _s("p", "bdfhilnsvw", "--no-renumber", "--body-numbering --section-delimiter "
             "--footer-numbering --header-numbering --line-increment --join-blank-lines "
             "--number-format --number-separator --starting-line-number --number-width"),
    "column": _s("tnexLJR", "scoNHOWEdr", "--table --fillrows --keep-empty-lines --json",
                 "--separator --output-separator --table-columns --table-name --output-width"),
    "fold": _s("bs", "w", "--bytes --spaces", "--width", numeric=True),
    "expand": _s("i", "t", "--initial", "--tabs", numeric=True),
    "unexpand": _s("a", "t", "--all --first-only", "--tabs", numeric=True),
    "rev": _NOTHING,
    "tac": _s("br", "s", "--before --regex", "--separator"),
    "seq": _s("w", "fs", "--equal-width", "--format --separator"),
    "sleep": _NOTHING,
    "yes": _s(any_args=True),
    "locale": _s("akmcv", "", "--all-locales --charmaps --category-name --keyword-name "
                 "--verbose"),
    "nproc": _s(long="--all", long_val="--ignore"),
    "free": _s("bkmgthlwv", "sc", "--bytes --kilo --mega --giga --tera --human --si --lohi "
               "--total --wide", "--seconds --count"),
    "uptime": _s("ps", "", "--pretty --since"),
    "lsblk": _s("abdDfimnlOpPrStTJuvz", "eIMoEx", "--all --bytes --fs --json --list --paths "
                "--pairs --raw --noheadings --output-all --tree", "--output --exclude --include "
                "--sort"),
    "lscpu": _s("aebcpxyJ", "", "--all --extended --json --parse --hex --physical"),
    "less": _s("EFfgGiIJKmMnNqQrRsSuUVwWXz", "bhjkpPtTxyz", "--quit-at-eof --QUIT-AT-EOF "
               "--quit-if-one-screen --ignore-case --IGNORE-CASE --LINE-NUMBERS --line-numbers "
               "--RAW-CONTROL-CHARS --raw-control-chars --squeeze-blank-lines --chop-long-lines "
               "--no-init --quiet --silent --tilde --mouse", "--pattern --tag --tabs --shift",
               no_plus=True),
    "more": _s("dlfpcsu", "n", no_plus=True),
    "zcat": _s("fqv", "", "--force --quiet --verbose --help"),
    "bzcat": _s("sqv", "", "--small --quiet --verbose"),
    "xzcat": _s("qvQT", "", "--quiet --verbose --no-warn --single-stream --ignore-check",
                "--threads --format"),
    "lsattr": _s("aRdvlp"),
    "getfacl": _s("aceEsRLPtpnd", "", "--access --omit-header --all-effective --no-effective "
                  "--skip-base --recursive --logical --physical --tabular --absolute-names "
                  "--numeric --default"),
    "base64": _s("diw", "w", "--decode --ignore-garbage", "--wrap"),
    "wait": _s("fn"),  # not -p VAR: it assigns a variable
    "jobs": _s("lnprs"),
    "who": _s("abdHlmpqrstTuw", "", "--all --boot --dead --heading --login --lookup --process "
              "--count --runlevel --short --time --mesg --writable --users"),
    "w": _s("hiusfo", "", "--no-header --ip-addr --no-current --short --from --old-style"),
    "tput": _s("S", "T"),
    "getconf": _s("a", "v", "--all"),
    "tty": _s("s", "", "--silent --quiet"),
    "exit": _s(any_args=True), "return": _s(any_args=True), "break": _s(any_args=True),
    "continue": _s(any_args=True), "shift": _s(any_args=True),
    "nm": _s("aABCDgjlnoprsSuvVPX", "ftX", "--debug-syms --demangle --no-demangle --dynamic "
             "--extern-only --defined-only --line-numbers --numeric-sort --no-sort --portability "
             "--reverse-sort --print-size --print-armap --undefined-only --size-sort "
             "--special-syms --with-symbol-versions", "--format --radix --target"),
    "readelf": _s("aAcCdDeghilnrsStuVWzI", "xpRw", "--all --file-header --program-headers "
                  "--segments --section-headers --sections --section-groups --section-details "
                  "--headers --syms --symbols --dyn-syms --lto-syms --notes --relocs "
                  "--unwind --dynamic --version-info --arch-specific --use-dynamic "
                  "--archive-index --wide --demangle", "--hex-dump --string-dump "
                  "--relocated-dump --debug-dump"),
    "objdump": _s("aCdDeEfFgGhHilrRsStTTvVwWxz", "bjmMe", "--archive-headers --demangle "
                  "--disassemble --disassemble-all --file-headers --file-offsets "
                  "--section-headers --headers --info --line-numbers --reloc --dynamic-reloc "
                  "--full-contents --source --syms --dynamic-syms --all-headers --wide "
                  "--private-headers --no-show-raw-insn --show-raw-insn", "--section "
                  "--architecture --disassembler-options --start-address --stop-address "
                  "--disassemble --demangle"),
    "numfmt": _s("dz", "", "--grouping --zero-terminated", "--from --to --format --padding "
                 "--suffix --field --delimiter --round --invalid --header --from-unit --to-unit"),
    "paste": _s("sz", "d", "--serial --zero-terminated", "--delimiters"),
    "join": _s("ivz", "aejot12", "--ignore-case --check-order --nocheck-order --header "
               "--zero-terminated"),
    "look": _s("bdf", "t", "--alternative --alphanum --ignore-case", "--terminate"),
    "fmt": _s("cstu", "pgw", "--crown-margin --tagged-paragraph --split-only --uniform-spacing",
              "--prefix --goal --width", numeric=True),
    "pr": _s("acdFfmrt", "hlwoNneisS", "--across --show-control-chars --double-space "
             "--form-feed --merge --no-file-warnings --omit-header", "--header --length "
             "--width --indent --columns --first-line-number", numeric=True),
    "vmstat": _s("afmnsdDpStw", "Sp", "--active --forks --slabs --stats --disk --wide --timestamp"),
    "iostat": _s("cdhkmNtxyz", "jop"),
    "lsmod": _NOTHING,
    "lsusb": _s("vt", "sD", "--verbose --tree"),
    "lspci": _s("mtvnkxbDPqQ", "sdi"),
    "tsort": _NOTHING,
    "pathchk": _s("pP", "", "--portability"),
    "expr": _s(any_args=True),
    "factor": _NOTHING,
    "cal": _s("13ymjswv", "n", "--one --three --year --monday --sunday --julian --week"),
    "ncal": _s("13ymjswvbCheMS", ""),
    "mountpoint": _s("qdx", "", "--quiet --fs-devno --devno"),
    "test": _s(any_args=True),
    "[": _s(any_args=True),
    "ps": _s("AadefFHjlLMNOPTuUvVwxyZ", "CGgopqstUu", "--forest --no-headers --headers "
             "--cumulative --help", "--format --sort --pid --ppid --user --group --cols "
             "--columns --lines --rows --sid --tty"),
    "jq": _s("cCnrjaSsMeh", "L", "--compact-output --color-output --monochrome-output "
             "--null-input --raw-output --join-output --ascii-output --sort-keys --slurp "
             "--tab --exit-status --raw-input --seq --stream --help --version --raw-output0 "
             "--unbuffered", "--indent --arg --argjson --slurpfile --rawfile --args --jsonargs"),
    "uniq": _s("cdDuiz", "fsw", "--count --repeated --all-repeated --unique --ignore-case "
               "--zero-terminated --group", "--skip-fields --skip-chars --check-chars "
               "--all-repeated --group", numeric=True),
    "sort": _s("bdfgiMhnRrsuVcCz", "ktS", "--ignore-leading-blanks --dictionary-order "
               "--ignore-case --general-numeric-sort --ignore-nonprinting --month-sort "
               "--human-numeric-sort --numeric-sort --random-sort --reverse --stable --unique "
               "--version-sort --check --zero-terminated --debug --help --version",
               "--key --field-separator --buffer-size --parallel --sort --check --files0-from "
               "--random-source"),
    "tee": _s("aip", "", "--append --ignore-interrupts", "--output-error"),
    "xxd": _s("abCEeipsuRr", "cgloOnsR", "-autoskip -bits -capitalize -EBCDIC -ps -postscript "
              "-plain -include -uppercase -revert", "-cols -groupsize -len -seek -offset -name"),
    "printf": _s(any_args=True),
    "printenv": _s("0", "", "--null"),
    "cd": _s("LPe@"),
    # Builtins whose own rule (shell_builtins) decides; the table only rejects unknown options.
    "shopt": _s("pqsuo"), "unset": _s("fvn"), "hash": _s("rltdp"), "alias": _s("p"),
    "trap": _s("lp"), "declare": _s("aAfFgiIlnrtuxp"), "typeset": _s("aAfFgiIlnrtuxp"),
    "local": _s("aAfFgiIlnrtuxp"), "export": _s("fnp"), "readonly": _s("aAfp"),
    "read": _s("ers", "adinNptu"), "mapfile": _s("t", "dnOsuCc"), "readarray": _s("t", "dnOsuCc"),
    "set": _s(any_args=True), "history": _s(any_args=True),
    "date": _s("uRI", "drfI", "--utc --universal --rfc-2822 --rfc-email --debug --help "
               "--version", "--date --reference --file --rfc-3339 --iso-8601 --resolution"),
    "dmesg": _s("HTkxLtdreuwW", "lfFs", "--human --ctime --kernel --decode --color --time-format "
                "--raw --userspace --follow --notime --show-delta --reltime", "--level "
                "--facility --file --buffer-size --since --until --time-format --color"),
    "sysctl": _s("anNeAbqX", "", "--all --values --names --ignore --binary --quiet"),
    "hostname": _s("fsiIdAay", "", "--fqdn --long --short --ip-address --all-ip-addresses "
                   "--domain --all-fqdns --alias --nis"),
    "timedatectl": _s("a", "M", "--all --no-pager --no-ask-password --adjust-system-clock "
                      "--monitor", "--host --machine --value --property"),
    "systemctl": _s("alqt", "tpPn", "--all --full --no-pager --no-legend --user --system "
                    "--failed --quiet --value --plain --recursive --show-types --no-ask-password",
                    "--type --state --property --lines --output --host --machine"),
    "loginctl": _s("al", "pPn", "--all --full --no-pager --no-legend --value", "--property "
                   "--lines --output"),
    "pushd": _s("n"),
    "popd": _s("n"),
}  # fmt: skip

# jq filters that read the environment (secrets) print what printenv would.
_JQ_ENV_RE = re.compile(r"(?<![\w$])(?:env|\$ENV|\$__prog_args|input_filename)\b|\$ENV")


def option_problem(name: str, args: list[Word]) -> str | None:
    """Why `name args` is not read-only by the table, or None when every option is known safe."""
    spec = SPECS.get(name)
    if spec is None:
        return f"`{name}` is not on the read-only list"
    if spec.any_args:
        return None
    i = 0
    while i < len(args):
        t = args[i].text
        i += 1
        if t == "--":
            break
        if spec.no_plus and t.startswith("+"):
            return f"`{name} {t}` runs a command"
        if not t.startswith("-") or t == "-":
            continue
        if spec.numeric and re.fullmatch(r"-[0-9]+[a-zA-Z]?", t):
            continue
        if t.startswith("--") or (name == "xxd" and len(t) > 2 and t[1:] in _XXD_WORDS):
            key, eq, _ = t.partition("=")
            if key in spec.long and not eq:
                continue
            if key in spec.long_val:
                i += 0 if eq else 1
                continue
            return f"`{name}` option `{key}` is not known to be read-only"
        for k, ch in enumerate(t[1:], start=1):
            if ch in spec.short_val:
                i += 0 if t[k + 1 :] else 1
                break
            if ch not in spec.short:
                return f"`{name}` option `-{ch}` is not known to be read-only"
    if name == "ps" and ps_shows_environment(args):
        return "`ps e` shows the environment of processes, which may hold secrets"
    if name == "jq" and any(_JQ_ENV_RE.search(a.text) for a in args):
        return "`jq` reads the environment, which may hold secrets"
    return None


_XXD_WORDS = {"autoskip", "bits", "capitalize", "EBCDIC", "ps", "postscript", "plain", "include"}
_XXD_WORDS |= {"uppercase", "revert", "cols", "groupsize", "len", "seek", "offset", "name"}
