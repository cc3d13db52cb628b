"""argparse value types shared by every `gg` command (stdlib only)."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

__all__ = ["add_budget_flags", "budget_of", "close_command", "positive_int", "usd", "workspace_dir"]


def workspace_dir(text: str) -> Path:
    """A --workspace value: an existing folder, or a usage error that names it (exit 2).

    A shared daemon serves many workspaces; a mistyped folder must never fall back to another
    one, where a run would read (and with --yolo write) the wrong project.
    """
    path = Path(text).expanduser()
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such folder: {text}")
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {text}")
    return path.resolve()


def close_command(word: str, commands: set[str]) -> str | None:
    """The command a mistyped first word most likely meant (None when none is close)."""
    if word in commands or len(word) < 2 or not word.isascii() or not word.isalpha():
        return None
    found = difflib.get_close_matches(word.lower(), sorted(commands), n=1, cutoff=0.8)
    return found[0] if found else None


def usd(text: str) -> float:
    """A --max-cost-usd value: a positive number of US dollars (a `$` in front is fine)."""
    try:
        value = float(text.strip().lstrip("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an amount of USD: {text}") from None
    if not value > 0 or value > 1_000_000:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1000000: {text}")
    return value


def positive_int(text: str) -> int:
    """A whole number above 0."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0: {text}")
    return value


def add_budget_flags(p: argparse.ArgumentParser, whose: str) -> None:
    """--max-cost-usd and --max-tokens: the budget of a run (or a job's runs)."""
    p.add_argument(
        "--max-cost-usd",
        type=usd,
        metavar="USD",
        help=f"stop {whose} when its model requests have cost this much (needs a known price)",
    )
    p.add_argument(
        "--max-tokens",
        type=positive_int,
        metavar="N",
        help=f"stop {whose} after this many tokens, every request's input and output summed",
    )


def budget_of(args: argparse.Namespace) -> dict[str, float | int] | None:
    """The protocol's `budget` object of the budget flags, or None when none was given."""
    out: dict[str, float | int] = {}
    if getattr(args, "max_cost_usd", None) is not None:
        out["maxCostUsd"] = args.max_cost_usd
    if getattr(args, "max_tokens", None) is not None:
        out["maxTokens"] = args.max_tokens
    return out or None
