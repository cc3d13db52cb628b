"""Unit tests of the gg command-line client (pure parts: framing, rendering, parsing, discovery)."""
