"""A broken MCP server: it reads the initialize request and exits without answering."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    sys.stdin.readline()
    sys.exit(3)
