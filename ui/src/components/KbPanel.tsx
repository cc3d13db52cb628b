import { useCallback, useEffect, useRef, useState } from "react";
import type {
  KbBase,
  KbHit,
  KbListResult,
  KbProgress,
  KbSearchResult,
  ParamsOf,
  RequestMethod,
  ResultOf,
} from "../protocol";

/** The client calls the panel needs (GgClient.call) and gg/kb.progress, so tests can pass a fake. */
export interface KbCaller {
  call<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

/** Subscribes to gg/kb.progress notifications; returns the unsubscribe function. */
export type KbProgressSource = (listener: (progress: KbProgress) => void) => () => void;

export interface KbPanelProps {
  client: KbCaller;
  progress?: KbProgressSource;
  /** Put a prompt about a hit into the composer (and show the chat). */
  onAsk?: (prompt: string) => void;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** "about 40 s left" from the embedding rate so far (null until there is a rate to go on). */
export function eta(embedded: number, total: number, elapsedMs: number): string | null {
  if (embedded <= 0 || total <= embedded || elapsedMs < 1000) return null;
  const seconds = Math.round(((total - embedded) * elapsedMs) / embedded / 1000);
  if (seconds < 60) return `about ${Math.max(1, seconds)} s left`;
  return `about ${Math.round(seconds / 60)} min left`;
}

/** One line for a progress notification: phase, counts and the time left. */
export function progressLine(p: KbProgress, elapsedMs: number): string {
  switch (p.phase) {
    case "waiting":
      return "Waiting for another index run of this base…";
    case "scan":
      return `Reading files: ${p.files ?? 0} of ${p.filesTotal ?? "?"}`;
    case "embed": {
      const left = eta(p.embedded ?? 0, p.embedTotal ?? 0, elapsedMs);
      return `Embedding chunks: ${p.embedded ?? 0} of ${p.embedTotal ?? "?"}${left ? ` · ${left}` : ""}`;
    }
    default:
      return "Done";
  }
}

/** The prompt "Ask about this" puts into the composer for a search hit. */
export function askPrompt(base: string, hit: KbHit): string {
  return `In the knowledge base "${base}", ${hit.path} lines ${hit.startLine}-${hit.endLine}${
    hit.heading ? ` ("${hit.heading}")` : ""
  }: `;
}

/** Knowledge bases (gg/kb.list), indexing a folder (gg/kb.index) and search (gg/kb.search). */
export function KbPanel({ client, progress, onAsk }: KbPanelProps) {
  const [list, setList] = useState<KbListResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [query, setQuery] = useState("");
  const [result, setResult] = useState<KbSearchResult | null>(null);
  const [searching, setSearching] = useState(false);
  const [folder, setFolder] = useState("");
  const [newName, setNewName] = useState("");
  const [indexing, setIndexing] = useState<string | null>(null);
  const [indexed, setIndexed] = useState<string | null>(null);
  const started = useRef(0);

  const refresh = useCallback(
    () =>
      client.call("gg/kb.list", {}).then((res) => {
        setList(res);
        setName((n) => n || res.bases[0]?.name || "");
      }),
    [client],
  );

  useEffect(() => {
    let live = true;
    refresh().catch((err: unknown) => live && setError(message(err)));
    return () => {
      live = false;
    };
  }, [refresh]);

  useEffect(() => {
    if (!progress) return undefined;
    return progress((p) => {
      if (started.current) setIndexing(progressLine(p, Date.now() - started.current));
    });
  }, [progress]);

  const search = async () => {
    if (!query.trim() || !name) return;
    setSearching(true);
    setError(null);
    try {
      setResult(await client.call("gg/kb.search", { query, name, topK: 8 }));
    } catch (err) {
      setResult(null);
      setError(message(err));
    } finally {
      setSearching(false);
    }
  };

  const index = async () => {
    if (!folder.trim()) return;
    setError(null);
    setIndexed(null);
    started.current = Date.now();
    setIndexing("Starting…");
    try {
      const res = await client.call("gg/kb.index", {
        path: folder.trim(),
        ...(newName.trim() ? { name: newName.trim() } : {}),
      });
      setIndexed(
        `Indexed ${res.files} files into ${res.name}: ${res.changed} changed, ${res.chunks} chunks, ` +
          `${res.seconds.toFixed(1)} s.`,
      );
      setName(res.name);
      await refresh();
    } catch (err) {
      setError(message(err));
    } finally {
      started.current = 0;
      setIndexing(null);
    }
  };

  if (!list && !error) return <p className="empty">Loading…</p>;
  const bases: KbBase[] = list?.bases ?? [];
  return (
    <section className="kb-panel" aria-label="Knowledge bases">
      {list ? <p className="kb-source">Embeddings: {list.embeddings}</p> : null}
      <form
        className="kb-index"
        aria-label="Index a folder"
        onSubmit={(event) => {
          event.preventDefault();
          void index();
        }}
      >
        <input
          aria-label="Folder to index"
          placeholder="Folder to index (relative to the workspace, or absolute)"
          value={folder}
          onChange={(event) => setFolder(event.target.value)}
        />
        <input
          aria-label="Knowledge base name"
          placeholder="Name (optional)"
          value={newName}
          onChange={(event) => setNewName(event.target.value)}
        />
        <button type="submit" disabled={indexing !== null || !folder.trim()}>
          Index
        </button>
      </form>
      {indexing ? (
        <p className="kb-progress" role="status" data-testid="kb-progress">
          {indexing}
        </p>
      ) : null}
      {indexed ? (
        <p className="kb-indexed" role="status">
          {indexed}
        </p>
      ) : null}
      {bases.length === 0 && list ? (
        <p className="empty">
          No knowledge base yet: index a folder above (or <code>gg kb index DIR</code>).
        </p>
      ) : null}
      {bases.length > 0 ? (
        <table className="kb-bases">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Files</th>
              <th scope="col">Chunks</th>
              <th scope="col">Vectors</th>
            </tr>
          </thead>
          <tbody>
            {bases.map((b) => (
              <tr key={b.name} title={b.root}>
                <td>{b.name}</td>
                <td>{b.files}</td>
                <td>{b.chunks}</td>
                <td>{b.model ? `${b.model} (${b.dim}d)` : "BM25 only"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {bases.length > 0 ? (
        <form
          className="kb-search"
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            void search();
          }}
        >
          <label>
            Base{" "}
            <select value={name} onChange={(event) => setName(event.target.value)}>
              {bases.map((b) => (
                <option key={b.name} value={b.name}>
                  {b.name}
                </option>
              ))}
            </select>
          </label>
          <input
            type="search"
            aria-label="Search the knowledge base"
            placeholder="Search…"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
          <button type="submit" disabled={searching || !query.trim()}>
            Search
          </button>
        </form>
      ) : null}
      {error ? (
        <p className="kb-error" role="alert">
          {error}
        </p>
      ) : null}
      {result ? (
        result.hits.length === 0 ? (
          <p className="empty">Nothing in {result.name} matches.</p>
        ) : (
          <ol className="kb-hits" aria-label={`Results (${result.mode})`}>
            {result.hits.map((h: KbHit) => (
              <li key={`${h.path}:${h.startLine}`} className="kb-hit">
                <div className="kb-hit-where">
                  <code>
                    {h.path}:{h.startLine}-{h.endLine}
                  </code>
                  {h.heading ? <span className="kb-hit-heading"> {h.heading}</span> : null}
                  {onAsk ? (
                    <button
                      type="button"
                      className="kb-ask"
                      aria-label={`Ask about ${h.path} lines ${h.startLine}-${h.endLine}`}
                      onClick={() => onAsk(askPrompt(result.name, h))}
                    >
                      Ask about this
                    </button>
                  ) : null}
                </div>
                <p className="kb-hit-snippet">{h.snippet}</p>
              </li>
            ))}
          </ol>
        )
      ) : null}
    </section>
  );
}
