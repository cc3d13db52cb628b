import type { SystemInfoResult } from "../protocol";

/** What the daemon is and can do (system.info). */
export function InfoPanel({ info }: { info: SystemInfoResult | null }) {
  if (!info) return <p className="empty">Loading…</p>;
  return (
    <section className="info-panel" aria-label="Daemon">
      <dl>
        <dt>Daemon</dt>
        <dd>ggd {info.serverVersion}</dd>
        <dt>Protocol</dt>
        <dd>{info.protocolVersion}</dd>
        <dt>Workspace</dt>
        <dd>{info.workspace.name}</dd>
        <dt>Models</dt>
        <dd>{(info.models ?? []).join(", ") || "–"}</dd>
        <dt>Capabilities</dt>
        <dd>{info.capabilities.join(", ")}</dd>
      </dl>
      {info.degradedProviders && info.degradedProviders.length > 0 ? (
        <>
          <h3>Unavailable</h3>
          <ul>
            {info.degradedProviders.map((p) => (
              <li key={p.name}>
                <strong>{p.name}</strong>: {p.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
