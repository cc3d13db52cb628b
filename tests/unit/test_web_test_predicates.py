"""Browser tests give Playwright's wait_for_function a function, never a bare expression.

The web UI's Content-Security-Policy has no 'unsafe-eval'. Playwright checks a predicate once
through the debugger (which the CSP does not see) and, while it is false, polls it inside the
page: a bare expression is then compiled with eval and throws. Such a wait passes whenever the
condition already holds and fails only when the page is slow, so a loaded CI run is the first
to see it. This check finds it on any machine.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUNCTION = re.compile(r"^\s*(async\s+)?(\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>|^\s*(async\s+)?function\b")


def _predicates() -> list[tuple[str, int, str | None]]:
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # Module-level string constants, for a predicate passed by name.
        constants = {
            target.id: stmt.value.value
            for stmt in tree.body
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
            for target in stmt.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wait_for_function"
                and node.args
            ):
                arg = node.args[0]
                text: str | None = None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    text = arg.value
                elif isinstance(arg, ast.Name):
                    text = constants.get(arg.id)
                found.append((str(path.relative_to(ROOT)), node.lineno, text))
    return found


def test_every_wait_for_function_predicate_is_a_function() -> None:
    predicates = _predicates()
    assert len(predicates) >= 10  # the browser tests are where this looks
    bad = [
        f"{p}:{line}: {text!r}"
        for p, line, text in predicates
        if not isinstance(text, str) or not FUNCTION.match(text)
    ]
    assert not bad, (
        "pass '() => ...' (a bare expression is eval'd under the UI's CSP):\n" + "\n".join(bad)
    )


def test_the_pattern_tells_a_function_from_an_expression() -> None:
    for ok in (
        "() => x",
        "name => a === name",
        "async () => 1",
        "function () { return 1 }",
        "(a, b) => a",
    ):
        assert FUNCTION.match(ok), ok
    for no in ("window.__labels.includes('Copied')", "document.activeElement?.id === 'x'", "x"):
        assert not FUNCTION.match(no), no
