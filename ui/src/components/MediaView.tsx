import { createContext, useContext, useEffect, useState } from "react";
import type { MediaGetResult } from "../protocol";

/** Fetches a media item by id (gg/media.get); provided by the app, absent in isolated renders. */
export type MediaLoader = (mediaId: string) => Promise<MediaGetResult>;
export const MediaContext = createContext<MediaLoader | null>(null);

/** A media id a tool result mentions ("saved as media m_0123456789abcdef"), for stored results. */
export function mediaIdIn(text: string | undefined): string | undefined {
  return text?.match(/\bm_[0-9a-f]{16}\b/)?.[0];
}

/** Only these types are drawn; anything else is offered as a download link. */
const IMAGE = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
const AUDIO = new Set(["audio/wav", "audio/mpeg", "audio/ogg", "audio/flac", "audio/mp4", "audio/webm"]);

/** A screenshot or generated image shown inline, or an audio clip with a player. */
export function MediaView({ mediaId }: { mediaId: string }) {
  const load = useContext(MediaContext);
  const [state, setState] = useState<{ url?: string; mime?: string; error?: string }>({});
  useEffect(() => {
    if (!load) return;
    let url: string | undefined;
    let live = true;
    load(mediaId).then(
      (item) => {
        const bytes = Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0));
        // A blob: URL, not a data: URL, so the CSP need not allow data: for media.
        url = URL.createObjectURL(new Blob([bytes], { type: item.mime }));
        if (live) setState({ url, mime: item.mime });
      },
      (err: unknown) => {
        if (live) setState({ error: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [load, mediaId]);
  if (!load) return null;
  if (state.error)
    return (
      <div className="media-error">
        media {mediaId} unavailable: {state.error}
      </div>
    );
  if (!state.url || !state.mime) return <div className="media-loading">loading {mediaId}…</div>;
  if (IMAGE.has(state.mime)) {
    return <img className="media-image" data-testid="media-image" src={state.url} alt={`media ${mediaId}`} />;
  }
  if (AUDIO.has(state.mime)) {
    return <audio className="media-audio" data-testid="media-audio" controls src={state.url} />;
  }
  return (
    <a href={state.url} download={mediaId}>
      download {mediaId}
    </a>
  );
}
