import { useCallback, useEffect, useState } from "react";
import type { McpListResult, McpTestResult } from "../protocol";

/** What the MCP section needs from the connection: list the servers, test one. */
export interface McpApi {
  list: () => Promise<McpListResult>;
  test: (server: string) => Promise<McpTestResult>;
}

/** The "MCP" section of the daemon panel: configured servers, their state, tools and errors. */
export function McpPanel({ api }: { api: McpApi }) {
  const [list, setList] = useState<McpListResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [testing, setTesting] = useState<string | null>(null);
  const [tested, setTested] = useState<Record<string, McpTestResult>>({});

  const refresh = useCallback(() => {
    api.list().then(
      (r) => {
        setList(r);
        setError(null);
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  }, [api]);
  useEffect(refresh, [refresh]);

  const test = (name: string) => {
    setTesting(name);
    api
      .test(name)
      .then((r) => setTested((t) => ({ ...t, [name]: r })))
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(() => {
        setTesting(null);
        refresh();
      });
  };

  return (
    <section className="info-panel mcp-panel" aria-label="MCP">
      <h3>MCP</h3>
      {error ? <p role="alert">{error}</p> : null}
      {list === null && !error ? <p className="empty">Loading…</p> : null}
      {list && list.servers.length === 0 ? <p className="empty">No MCP servers configured.</p> : null}
      {list?.workspaceFile === "untrusted" ? (
        <p>
          This workspace's <code>.gg/mcp.json</code> is not trusted; review it, then run <code>gg mcp trust</code>.
        </p>
      ) : null}
      {list?.configError ? <p role="alert">{list.configError}</p> : null}
      <ul className="mcp-servers">
        {(list?.servers ?? []).map((s) => {
          const t = tested[s.name];
          return (
            <li key={`${s.origin}:${s.name}`} data-state={s.state} className="mcp-server">
              <div className="mcp-head">
                <strong>{s.name}</strong>
                <span className={`mcp-state state-${s.state}`}>{s.state}</span>
                <span className="mcp-meta">
                  {s.transport} · {s.origin}
                </span>
                {s.state !== "untrusted" ? (
                  <button type="button" className="btn small" disabled={testing !== null} onClick={() => test(s.name)}>
                    {testing === s.name ? "Testing…" : "Test"}
                  </button>
                ) : null}
              </div>
              {s.tools && s.tools.length > 0 ? (
                <ul className="mcp-tools" aria-label={`${s.name} tools`}>
                  {s.tools.map((tool) => (
                    <li key={tool}>
                      <code>{tool}</code>
                    </li>
                  ))}
                </ul>
              ) : null}
              {s.lastError ? <div className="mcp-error">{s.lastError}</div> : null}
              {t ? (
                <div className="mcp-test">
                  {t.ok
                    ? `ok in ${t.elapsedMs} ms: ${t.tools?.length ?? 0} tools`
                    : `failed: ${t.error ?? "unknown error"}`}
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
