import { useCallback, useEffect, useRef, useState } from "react";
import type { Artifact, ArtifactVersion, ArtifactView } from "../protocol";
import type { GgClient } from "../rpc/client";
import { RpcError } from "../rpc/transport";
import { errorText } from "../state/session";
import { Diff } from "../components/Diff";
import { Markdown } from "../components/Markdown";
import { HtmlFrame } from "./HtmlFrame";
import { lineDiff } from "./lineDiff";
import "./artifacts.css";

const VERSION_CHANGED = -32012;

/** The Artifacts tab: the list, a reader with a version picker and diff, and Publish. */
export function ArtifactsPanel({ client }: { client: GgClient }) {
  const [artifacts, setArtifacts] = useState<Artifact[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [version, setVersion] = useState<number | null>(null);
  const [view, setView] = useState<ArtifactView | null>(null);
  const [versions, setVersions] = useState<ArtifactVersion[]>([]);
  const [compare, setCompare] = useState<number | null>(null);
  const [diff, setDiff] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [publishing, setPublishing] = useState(false);
  const selectedRef = useRef<string | null>(null);
  selectedRef.current = selected;

  const loadList = useCallback(async () => {
    try {
      const { artifacts: list } = await client.call("gg/artifact.list", {});
      setArtifacts(list);
      setSelected((current) => current ?? list[0]?.id ?? null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [client]);

  const loadView = useCallback(
    async (artifactId: string, at: number | null) => {
      try {
        const [got, vs] = await Promise.all([
          client.call("gg/artifact.get", at ? { artifactId, version: at } : { artifactId }),
          client.call("gg/artifact.versions", { artifactId }),
        ]);
        if (selectedRef.current !== artifactId) return;
        setView(got);
        setVersions(vs.versions);
      } catch (e) {
        setError(errorText(e));
      }
    },
    [client],
  );

  useEffect(() => {
    void loadList();
    // Live: a run created or edited an artifact (list-level session events of this workspace).
    return client.onSessionEvent((event) => {
      if (event.type !== "artifact_created" && event.type !== "artifact_updated") return;
      void loadList();
      if (event.artifactId && event.artifactId === selectedRef.current) {
        setVersion(null);
        void loadView(event.artifactId, null);
      }
    });
  }, [client, loadList, loadView]);

  useEffect(() => {
    setDiff(null);
    setCompare(null);
    if (selected) void loadView(selected, version);
    else setView(null);
  }, [selected, version, loadView]);

  useEffect(() => {
    if (!view || compare === null) {
      setDiff(null);
      return;
    }
    let live = true;
    void client
      .call("gg/artifact.get", { artifactId: view.artifact.id, version: compare })
      .then((other) => {
        if (live) setDiff(lineDiff(other.content, view.content, `v${compare}`, `v${view.version}`));
      })
      .catch((e: unknown) => setError(errorText(e)));
    return () => {
      live = false;
    };
  }, [client, view, compare]);

  const publish = async () => {
    if (!view) return;
    setPublishing(true);
    setNotice(null);
    try {
      const res = await client.call("gg/artifact.publish", { artifactId: view.artifact.id });
      setNotice(`Published v${res.artifact.publishedVersion} to the library as ${res.item.name}.`);
      await loadList();
      await loadView(view.artifact.id, version);
    } catch (e) {
      if (e instanceof RpcError && e.code === VERSION_CHANGED) {
        setNotice("The artifact changed while publishing; review the new version and publish again.");
        setVersion(null);
        await loadView(view.artifact.id, null);
      } else {
        setError(errorText(e));
      }
    } finally {
      setPublishing(false);
    }
  };

  if (artifacts === null) return <p className="empty">Loading…</p>;
  const current = artifacts.find((a) => a.id === selected) ?? view?.artifact ?? null;
  return (
    <section className="artifacts" aria-label="Artifacts" data-testid="artifacts-panel">
      <nav className="artifact-list" aria-label="Artifact list">
        {artifacts.length === 0 ? (
          <p className="empty">No artifacts yet. Ask the agent to write a report or a page.</p>
        ) : null}
        <ul>
          {artifacts.map((a) => (
            <li key={a.id}>
              <button
                type="button"
                className={`artifact-row${a.id === selected ? " selected" : ""}`}
                aria-current={a.id === selected}
                onClick={() => {
                  setSelected(a.id);
                  setVersion(null);
                }}
                data-testid="artifact-row"
              >
                <span className="artifact-title">{a.title}</span>
                <span className="artifact-meta">
                  {a.type} · v{a.version}
                  {a.publishedVersion >= a.version ? " · published" : ""}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <div className="artifact-reader">
        {error ? (
          <div className="error-bar" role="alert" data-testid="artifact-error">
            <span>{error}</span>
            <button type="button" className="btn small ghost" onClick={() => setError(null)}>
              Dismiss
            </button>
          </div>
        ) : null}
        {notice ? (
          <p className="artifact-notice" role="status" data-testid="artifact-notice">
            {notice}
          </p>
        ) : null}
        {view && current ? (
          <>
            <header className="artifact-head">
              <h2 data-testid="artifact-heading">{view.artifact.title}</h2>
              <label className="field">
                <span>Version</span>
                <select
                  aria-label="Version"
                  value={view.version}
                  onChange={(e) => setVersion(Number(e.target.value))}
                  data-testid="artifact-version"
                >
                  {versions.map((v) => (
                    <option key={v.version} value={v.version}>
                      v{v.version}
                      {v.version === current.publishedVersion ? " (published)" : ""}
                    </option>
                  ))}
                </select>
              </label>
              <label className="field">
                <span>Compare with</span>
                <select
                  aria-label="Compare with"
                  value={compare ?? ""}
                  onChange={(e) => setCompare(e.target.value ? Number(e.target.value) : null)}
                  disabled={versions.length < 2}
                  data-testid="artifact-compare"
                >
                  <option value="">–</option>
                  {versions
                    .filter((v) => v.version !== view.version)
                    .map((v) => (
                      <option key={v.version} value={v.version}>
                        v{v.version}
                      </option>
                    ))}
                </select>
              </label>
              <span className="spacer" />
              <span className="artifact-state" data-testid="artifact-state">
                {current.publishedVersion > 0 ? `published v${current.publishedVersion}` : "not published"}
              </span>
              {current.publishedVersion < current.version ? (
                <button
                  type="button"
                  className="btn primary small"
                  onClick={() => void publish()}
                  disabled={publishing}
                  data-testid="artifact-publish"
                >
                  {publishing ? "Publishing…" : `Publish v${current.version}`}
                </button>
              ) : null}
            </header>
            {diff !== null ? (
              <Diff diff={diff} />
            ) : view.artifact.type === "html" ? (
              <HtmlFrame html={view.content} title={view.artifact.title} />
            ) : (
              <div className="artifact-body" data-testid="artifact-body">
                <Markdown text={view.content} />
              </div>
            )}
          </>
        ) : artifacts.length > 0 ? (
          <p className="empty">Loading…</p>
        ) : null}
      </div>
    </section>
  );
}
