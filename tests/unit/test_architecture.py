"""ARCHITECTURE.md's dependency direction, checked on the import statements of every module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# package -> ggd packages it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    # adapters to dependencies' private parts (docs/internals.md): import nothing of gg
    "compat": set(),
    "protocol": set(),
    "session": set(),
    "tools": set(),
    "providers": set(),
    "checkpoints": set(),
    # Claude Code-compatible hooks: configuration, running a command, reading its answer
    "hooks": set(),
    "agent": {"tools", "providers"},
    "app": {"protocol", "agent", "session", "tools", "providers", "hooks", "checkpoints"},
    "rpc": {"protocol", "app"},
    "transport": {"protocol", "rpc", "compat"},
    "capabilities": {
        "protocol",
        "app",
        "agent",
        "tools",
        "session",
        "providers",
        "compat",
        "checkpoints",
    },
    # clients of gg (ggd --acp, ggd --mcp): they speak to a daemon, never into one
    "adapters": {"protocol"},
    "daemon": {
        "protocol",
        "app",
        "rpc",
        "transport",
        "providers",
        "session",
        "tools",
        "agent",
        "capabilities",
        "compat",
        "adapters",
        "checkpoints",
        "hooks",
    },
}


def _capability_of(module: str, path: Path) -> set[str]:
    """The sibling capability packages a module of ggd/capabilities/<name>/ imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(ROOT / "ggd" / "capabilities").parts
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names = [node.module]
            elif node.level >= 2:
                # from ..other import x  (relative, leaving this capability's package)
                base = list(here[:-1])[: len(here) - node.level]
                names = ["ggd.capabilities." + ".".join([*base, *(node.module or "").split(".")])]
        for n in names:
            parts = n.split(".")
            if parts[:2] == ["ggd", "capabilities"] and len(parts) > 2 and parts[2] != module:
                found.add(parts[2])
    return found


def test_capability_packages_import_no_other_capability() -> None:
    problems = []
    for pkg in sorted(p for p in (ROOT / "ggd" / "capabilities").iterdir() if p.is_dir()):
        if pkg.name.startswith("_"):
            continue
        for py in pkg.rglob("*.py"):
            bad = _capability_of(pkg.name, py)
            if bad:
                problems.append(f"{py.relative_to(ROOT)} imports capabilities {sorted(bad)}")
    assert not problems, "\n".join(problems)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkgs: set[str] = set()
    # the package parts of this module, e.g. ("rpc", "handlers") for ggd/rpc/handlers/x.py
    here = path.relative_to(ROOT / "ggd").parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("ggd."):
                    pkgs.add(a.name.split(".")[1])
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and node.module.startswith("ggd."):
                pkgs.add(node.module.split(".")[1])
            elif node.level >= 1:
                base = here[: len(here) - (node.level - 1)]
                full = [*base, *(node.module.split(".") if node.module else [])]
                if full:
                    pkgs.add(full[0])
    return pkgs


def test_ggd_packages_respect_the_dependency_direction() -> None:
    problems = []
    for pkg, allowed in ALLOWED.items():
        for py in (ROOT / "ggd" / pkg).rglob("*.py"):
            bad = _imports(py) - allowed - {pkg}
            if bad:
                problems.append(f"{py.relative_to(ROOT)} imports {sorted(bad)}")
    assert not problems, "\n".join(problems)


def test_the_cli_imports_nothing_of_ggd_or_heavy_libraries() -> None:
    heavy = {"ggd", "pygls", "lsprotocol", "httpx", "pydantic", "mcp", "websockets"}
    problems = []
    for py in (ROOT / "ggcli").rglob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for n in names:
                if n.split(".")[0] in heavy:
                    problems.append(f"{py.relative_to(ROOT)} imports {n}")
    assert not problems, "\n".join(problems)


def test_every_package_declares_its_purpose_and_surface() -> None:
    for init in (ROOT / "ggd").glob("*/__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{init.relative_to(ROOT)} has no purpose docstring"


def _module_imports(path: Path) -> set[str]:
    """ggd modules a module imports, anywhere in it but under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts)[:-1]  # what `from . import x` is relative to
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ggd."))
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            if not base.startswith("ggd"):
                continue
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)  # `from . import app`
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_daemon_and_rpc_modules_import_each_other_in_one_direction() -> None:
    # The composition root (ggd.daemon) and the rpc layer: no module imports one that imports
    # it back, even lazily (main -> app -> main was one; hub -> handlers -> hub another).
    for pkg in ("daemon", "rpc"):
        mods = {
            ".".join(py.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): py
            for py in (ROOT / "ggd" / pkg).rglob("*.py")
        }
        graph = {
            name: {m for m in _module_imports(py) if m in mods and m != name}
            for name, py in mods.items()
            if not name.endswith(f"ggd.{pkg}")  # a package __init__ re-exports its modules
        }
        assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_capability_handlers_and_declarations_take_the_environment_passed_in() -> None:
    # ctx.env (HandlerContext, ChannelContext, SetupContext, StateContext) is the daemon's
    # environment as composed; a handler or channel factory never reads os.environ itself.
    problems = []
    for pkg in sorted(p for p in (ROOT / "ggd" / "capabilities").iterdir() if p.is_dir()):
        for name in ("handlers.py", "__init__.py"):
            py = pkg / name
            if py.exists() and "os.environ" in py.read_text(encoding="utf-8"):
                problems.append(str(py.relative_to(ROOT)))
    assert not problems, problems


def _cli_files() -> list[Path]:
    return sorted((ROOT / "ggd" / "capabilities").glob("*/cli.py")) + sorted(
        (ROOT / "tests" / "fakes").glob("*/cli.py")
    )


def test_a_capability_s_command_line_is_stdlib_and_ggcli_only() -> None:
    # The CLI loads these files without importing ggd (ggcli.commands): a relative import or
    # one of ggd would import the daemon's packages into every `gg` command.
    heavy = {"ggd", "pygls", "lsprotocol", "httpx", "pydantic", "mcp", "websockets", "tests"}
    files = _cli_files()
    assert len(files) >= 10  # the nine shipped capability CLIs and the greeter's
    problems = []
    for py in files:
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                problems.append(f"{py.relative_to(ROOT)}: relative import")
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            problems += [
                f"{py.relative_to(ROOT)} imports {n}" for n in names if n.split(".")[0] in heavy
            ]
    assert not problems, "\n".join(problems)


def test_no_daemon_module_imports_a_command_line() -> None:
    problems = []
    for py in (ROOT / "ggd").rglob("*.py"):
        if py.name == "cli.py":
            continue
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "cli":
                problems.append(str(py.relative_to(ROOT)))
            if isinstance(node, ast.ImportFrom) and any(a.name == "cli" for a in node.names):
                problems.append(str(py.relative_to(ROOT)))
    assert not problems, problems
