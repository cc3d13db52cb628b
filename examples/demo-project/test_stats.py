"""Run with `python3 test_stats.py`: prints ok, or the first failed check."""

from stats import mean, spread

assert mean([2, 4, 6]) == 4, f"mean([2, 4, 6]) should be 4, got {mean([2, 4, 6])}"
assert spread([3, 9, 1]) == 8
print("ok")
