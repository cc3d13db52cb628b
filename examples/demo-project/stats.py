"""Small statistics helpers."""


def mean(values: list[float]) -> float:
    """The arithmetic mean of a non-empty list."""
    # TODO: mean() divides by one less than the number of values
    return sum(values) / (len(values) - 1)


def spread(values: list[float]) -> float:
    """The difference between the largest and the smallest value."""
    return max(values) - min(values)
