"""Adapters for the few things a dependency offers no public API for: one module per library.

Each module holds every use gg makes of that library's private names, and has a test
(tests/unit/compat/) that fails loudly when an upgrade breaks the assumption it rests on.
docs/internals.md ("Adapters to dependencies") lists them and says why each exists.
"""

__all__: list[str] = []
