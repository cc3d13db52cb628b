"""The bash command classifier: is a command read_only, normal or dangerous, and why.

The bash tool asks `classify_command` before it runs anything; only read_only runs without an
approval, in every approver (interactive, non-interactive, scheduled, `ggd --mcp`). The modules:

- lex, scan: the lexer (quotes, escapes, substitutions, here-documents, braces, variables);
- classifier: the walk over commands, substitutions and re-entered text, worst verdict wins;
- verdict: verdicts and the helpers the rules share;
- readonly: the allow-list of programs with their known-safe options;
- rules, system, git_rules, sed, builtin_rules: per-command rules;
- wrappers, run, feed: commands that run commands, and text a shell runs;
- env, paths, secret_reads, taint: assignments, where paths point, credentials read, and
  secrets copied through variables.

It never executes anything and fails closed: what it cannot fully read is never read_only.
"""

from __future__ import annotations

from ggd.tools.shell.classifier import Classification, classify_command

__all__ = ["Classification", "classify_command"]
