import { useEffect, useState } from "react";
import type { KbBase, KbHit, KbListResult, KbSearchResult, ParamsOf, RequestMethod, ResultOf } from "../protocol";

/** The one client call the panel needs (GgClient.call), so tests can pass a fake. */
export interface KbCaller {
  call<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Knowledge bases (gg/kb.list) and a search box over one of them (gg/kb.search). */
export function KbPanel({ client }: { client: KbCaller }) {
  const [list, setList] = useState<KbListResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [query, setQuery] = useState("");
  const [result, setResult] = useState<KbSearchResult | null>(null);
  const [searching, setSearching] = useState(false);

  useEffect(() => {
    let live = true;
    client
      .call("gg/kb.list", {})
      .then((res) => {
        if (!live) return;
        setList(res);
        setName((n) => n || res.bases[0]?.name || "");
      })
      .catch((err: unknown) => live && setError(message(err)));
    return () => {
      live = false;
    };
  }, [client]);

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

  if (!list && !error) return <p className="empty">Loading…</p>;
  const bases: KbBase[] = list?.bases ?? [];
  return (
    <section className="kb-panel" aria-label="Knowledge bases">
      {list ? <p className="kb-source">Embeddings: {list.embeddings}</p> : null}
      {bases.length === 0 && list ? (
        <p className="empty">
          No knowledge base yet. Index a folder with <code>gg kb index DIR</code>.
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
              <li key={`${h.path}:${h.startLine}`}>
                <div className="kb-hit-where">
                  <code>
                    {h.path}:{h.startLine}-{h.endLine}
                  </code>
                  {h.heading ? <span className="kb-hit-heading"> {h.heading}</span> : null}
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
