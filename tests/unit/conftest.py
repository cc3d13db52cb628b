"""Hypothesis runs without a per-example deadline: a wall-clock limit is a timing assertion, and
on a loaded 2-core machine one slow example failed a property test that has nothing to do with
time (DeadlineExceeded). The properties and their example counts are unchanged."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("gg", deadline=None)
settings.load_profile("gg")
