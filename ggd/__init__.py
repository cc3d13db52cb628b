"""ggd: the gg daemon and agent core."""

__version__ = "0.1.0"
