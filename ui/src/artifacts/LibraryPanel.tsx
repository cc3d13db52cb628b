import { useCallback, useEffect, useState } from "react";
import type { LibraryItem } from "../protocol";
import type { GgClient } from "../rpc/client";
import { errorText } from "../state/session";
import "./artifacts.css";

/** Uploads travel base64 in one protocol message: the daemon takes at most 2 MiB each. */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;

function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** The Library tab: the user's files, upload by drag and drop (or a picker), download. */
export function LibraryPanel({ client }: { client: GgClient }) {
  const [items, setItems] = useState<LibraryItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);

  const load = useCallback(async () => {
    try {
      setItems((await client.call("gg/library.list", {})).items);
    } catch (e) {
      setError(errorText(e));
    }
  }, [client]);

  useEffect(() => {
    void load();
    // A publish from the Artifacts tab (or another client) adds files: follow artifact events too.
    return client.onSessionEvent((event) => {
      if (event.type === "artifact_created" || event.type === "artifact_updated") void load();
    });
  }, [client, load]);

  const upload = async (files: FileList | File[]) => {
    setError(null);
    setNotice(null);
    for (const file of Array.from(files)) {
      if (file.size > MAX_UPLOAD_BYTES) {
        setError(
          `${file.name} is ${sizeText(file.size)}; uploads hold at most 2 MiB. ` +
            "Add larger files with `gg library add PATH` on the daemon's machine.",
        );
        continue;
      }
      try {
        const content = toBase64(new Uint8Array(await file.arrayBuffer()));
        const { item } = await client.call("gg/library.add", { name: file.name, content });
        setNotice(item.name === file.name ? `Added ${item.name}.` : `Added ${file.name} as ${item.name}.`);
      } catch (e) {
        setError(errorText(e));
      }
    }
    await load();
  };

  const download = async (item: LibraryItem) => {
    try {
      const parts: Uint8Array<ArrayBuffer>[] = [];
      let offset = 0;
      for (;;) {
        const chunk = await client.call("gg/library.get", { itemId: item.id, offset });
        const bytes = fromBase64(chunk.content);
        parts.push(bytes);
        offset += bytes.length;
        if (chunk.eof || bytes.length === 0) break;
      }
      const url = URL.createObjectURL(new Blob(parts, { type: "application/octet-stream" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = item.name;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const remove = async (item: LibraryItem) => {
    try {
      await client.call("gg/library.remove", { itemId: item.id });
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="library" aria-label="Library" data-testid="library-panel">
      <div
        className={`drop-zone${dragging ? " dragging" : ""}`}
        data-testid="library-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          void upload(e.dataTransfer.files);
        }}
      >
        <p>Drop files here to add them to your library (at most 2 MiB each), or</p>
        <label className="btn small">
          Choose files
          <input
            type="file"
            multiple
            className="visually-hidden"
            data-testid="library-input"
            onChange={(e) => {
              if (e.target.files) void upload(e.target.files);
              e.target.value = "";
            }}
          />
        </label>
      </div>
      {error ? (
        <div className="error-bar" role="alert" data-testid="library-error">
          <span>{error}</span>
          <button type="button" className="btn small ghost" onClick={() => setError(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {notice ? (
        <p className="artifact-notice" role="status" data-testid="library-notice">
          {notice}
        </p>
      ) : null}
      {items === null ? <p className="empty">Loading…</p> : null}
      {items && items.length === 0 ? <p className="empty">The library is empty.</p> : null}
      {items && items.length > 0 ? (
        <table className="library-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">From</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.id} data-testid="library-row">
                <td>{item.name}</td>
                <td>{sizeText(item.size)}</td>
                <td>{item.source.startsWith("artifact:") ? "artifact" : item.source}</td>
                <td className="library-actions">
                  <button
                    type="button"
                    className="btn small"
                    onClick={() => void download(item)}
                    aria-label={`Download ${item.name}`}
                  >
                    Download
                  </button>
                  <button
                    type="button"
                    className="btn small ghost"
                    onClick={() => void remove(item)}
                    aria-label={`Remove ${item.name}`}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
