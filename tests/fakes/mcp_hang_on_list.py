"""A broken MCP server: it initializes, then never answers tools/list (sleeps HANG seconds)."""

from __future__ import annotations

import json
import sys
import time


def _send(msg: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main() -> None:
    hang = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "initialize":
            _send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": {
                        "protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "hang", "version": "0"},
                    },
                }
            )
        elif msg.get("method") == "tools/list":
            time.sleep(hang)


if __name__ == "__main__":
    main()
