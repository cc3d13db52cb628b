"""An MCP server (the mcp SDK's own MCPServer, over stdio) whose tool returns a huge structured result.

`rows(count)` answers `{"rows": [{"id": i, "text": ...}, ...]}` as structuredContent (and the same
JSON as text, as the SDK does): about 100 bytes a row, so 100,000 rows is a 10 MB result.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("big")


@server.tool(description="Many rows of structured data.", structured_output=True)
def rows(count: int) -> dict[str, Any]:
    filler = "x" * 72
    return {"rows": [{"id": i, "text": f"row {i:07d} {filler}"} for i in range(count)]}


if __name__ == "__main__":
    server.run("stdio")
