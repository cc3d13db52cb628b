"""Request handlers of gg/mcp.*: list, test, and the edits only the daemon makes to its stores."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from ggd.app import Handler, HandlerContext, sanitize_reason
from ggd.protocol import errors as E
from ggd.protocol.base import Empty

from .config import (
    HttpServer,
    McpConfigError,
    McpSection,
    ServerSpec,
    StdioServer,
    add_server,
    load_servers,
    remove_server,
    trust_workspace,
)
from .protocol import (
    McpAddParams,
    McpAddResult,
    McpListResult,
    McpRemoveResult,
    McpServerInfo,
    McpServerParams,
    McpSessionServer,
    McpSessionSetParams,
    McpSessionSetResult,
    McpTestResult,
    McpTrustResult,
)
from .provider import McpState, ServerStatus, probe
from .session import set_session_servers


def _section(ctx: HandlerContext) -> McpSection:
    return ctx.section(McpSection)


def _local_only(ctx: HandlerContext, what: str) -> None:
    # A remote client that could add a command would run code on this machine.
    if ctx.remote:
        raise E.CapabilityUnavailableError(
            f"{what} is refused over a remote connection; run it on the daemon's machine"
        )


async def mcp_list(ctx: HandlerContext, params: Empty) -> McpListResult:
    """The workspace's servers with their latest state."""
    home, ws = ctx.services.home, ctx.workspace
    try:
        servers = await asyncio.to_thread(load_servers, home, ws.root)
    except McpConfigError as exc:
        return McpListResult(servers=[], workspace_file="absent", config_error=str(exc))
    book = ctx.state(McpState).book
    out: list[McpServerInfo] = []
    for name, spec in sorted(servers.servers.items()):
        st = book.get(ws.id, name, spec.fingerprint)
        out.append(
            McpServerInfo.model_validate(
                {
                    "name": name,
                    "origin": spec.origin,
                    "transport": spec.transport,
                    "state": "failed" if spec.problem else st.state,
                    "tools": st.tools,
                    "last_error": spec.problem or st.last_error,
                }
            )
        )
    for name in servers.untrusted:
        out.append(
            McpServerInfo.model_validate(
                {
                    "name": name,
                    "origin": "workspace",
                    "transport": servers.untrusted_transport.get(name, "stdio"),
                    "state": "untrusted",
                }
            )
        )
    return McpListResult(
        servers=out,
        workspace_file=servers.workspace_file,
        config_error=servers.errors[0] if servers.errors else None,
    )


async def mcp_test(ctx: HandlerContext, params: McpServerParams) -> McpTestResult:
    """Connect to one server now (its own connection, closed after listing)."""
    home = ctx.services.home
    try:
        servers = await asyncio.to_thread(load_servers, home, ctx.workspace.root)
    except McpConfigError as exc:
        raise E.InvalidParamsError(f"invalid params: {exc}") from None
    spec = servers.servers.get(params.server)
    if spec is None:
        hint = (
            " (it is in an untrusted workspace file: run `gg mcp trust`)"
            if params.server in servers.untrusted
            else ""
        )
        raise E.InvalidParamsError(f"invalid params: server: no MCP server {params.server!r}{hint}")
    stopping = ctx.state(McpState).stopping
    out: dict[str, Any] = await probe(spec, home, _section(ctx).list_timeout_seconds, stopping)
    # gg/mcp.list shows what the test found (docs/mcp.md): the tools, or why it failed.
    ctx.state(McpState).book.set(
        ctx.workspace.id,
        spec.name,
        ServerStatus(
            "connected" if out["ok"] else "failed", out["tools"], out["error"], spec.fingerprint
        ),
    )
    if out["error"]:
        out["error"] = _failure(ctx, spec, out["error"])
    return McpTestResult(server=params.server, **out)


def _failure(ctx: HandlerContext, spec: ServerSpec, error: str) -> str:
    """A failed test's reason, naming the server's log; full paths for this machine's clients."""
    home = ctx.services.home
    cfg = spec.config
    log = home / "logs" / "mcp" / f"{spec.name}.log"
    if ctx.remote:
        # Another machine learns no paths (sanitize_reason), only where to look: GG_HOME/...
        reason = sanitize_reason(error, gg_home=home)
        return f"{reason}; its log: GG_HOME/logs/mcp/{log.name}" if log.exists() else reason
    # The user of this machine wrote the command and owns the log: both are shown in full
    # (sanitize_reason would cut a path to its last component), secrets still masked.
    keep = cfg.command if isinstance(cfg, StdioServer) and os.sep in cfg.command else None
    mark = "\ue000"  # stands in for the configured command while paths are cut elsewhere
    reason = sanitize_reason(error.replace(keep, mark) if keep else error)
    if keep:
        reason = reason.replace(mark, keep)
    return f"{reason}; its log: {log}" if log.exists() else reason


def _server_config(params: McpAddParams | McpSessionServer) -> StdioServer | HttpServer:
    if (params.command is None) == (params.url is None):
        raise E.InvalidParamsError("invalid params: give either command (stdio) or url (http)")
    cfg: StdioServer | HttpServer
    if params.command is not None:
        if params.headers:
            raise E.InvalidParamsError("invalid params: headers: only for url servers")
        cfg = StdioServer(command=params.command, args=params.args, env=params.env, cwd=params.cwd)
    else:
        if params.args or params.env or params.cwd:
            raise E.InvalidParamsError("invalid params: args, env and cwd are for command servers")
        cfg = HttpServer(url=params.url or "", headers=params.headers)
    return cfg


async def mcp_add(ctx: HandlerContext, params: McpAddParams) -> McpAddResult:
    """Add a server to GG_HOME/mcp.json."""
    _local_only(ctx, "gg/mcp.add")
    cfg = _server_config(params)
    try:
        replaced = await asyncio.to_thread(add_server, ctx.services.home, params.name, cfg)
    except McpConfigError as exc:
        raise E.InvalidParamsError(f"invalid params: {exc}; fix or move GG_HOME/mcp.json") from None
    return McpAddResult(name=params.name, replaced=replaced)


async def mcp_remove(ctx: HandlerContext, params: McpServerParams) -> McpRemoveResult:
    """Remove a server from GG_HOME/mcp.json."""
    _local_only(ctx, "gg/mcp.remove")
    try:
        removed = await asyncio.to_thread(remove_server, ctx.services.home, params.server)
    except McpConfigError as exc:
        raise E.InvalidParamsError(f"invalid params: {exc}; fix or move GG_HOME/mcp.json") from None
    return McpRemoveResult(name=params.server, removed=removed)


async def mcp_trust(ctx: HandlerContext, params: Empty) -> McpTrustResult:
    """Trust the workspace's .gg/mcp.json as it is now."""
    _local_only(ctx, "gg/mcp.trust")
    try:
        names = await asyncio.to_thread(trust_workspace, ctx.services.home, ctx.workspace.root)
    except McpConfigError as exc:
        raise E.InvalidParamsError(f"invalid params: {exc}") from None
    return McpTrustResult(servers=names)


async def mcp_session_set(ctx: HandlerContext, params: McpSessionSetParams) -> McpSessionSetResult:
    """Replace a session's own servers; its next turn connects them (and closes removed ones)."""
    _local_only(ctx, "gg/mcp.session.set")
    configs: dict[str, StdioServer | HttpServer] = {}
    for server in params.servers:
        if server.name in configs:
            raise E.InvalidParamsError(f"invalid params: servers: {server.name!r} appears twice")
        configs[server.name] = _server_config(server)
    set_session_servers(ctx.state(McpState).sessions, params.session_id, configs)
    return McpSessionSetResult(servers=sorted(configs))


HANDLERS: dict[str, Handler] = {
    "gg/mcp.list": mcp_list,
    "gg/mcp.test": mcp_test,
    "gg/mcp.add": mcp_add,
    "gg/mcp.remove": mcp_remove,
    "gg/mcp.trust": mcp_trust,
    "gg/mcp.session.set": mcp_session_set,
}

__all__ = ["HANDLERS"]
