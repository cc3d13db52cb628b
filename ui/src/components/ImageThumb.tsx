import { createContext, useContext, useEffect, useState } from "react";
import type { ImageGetResult, ImageInfo } from "../protocol";

/** Fetches a stored image by id (gg/image.get); provided by the app, absent in isolated renders. */
export type ImageLoader = (imageId: string) => Promise<ImageGetResult>;
export const ImageContext = createContext<ImageLoader | null>(null);

/** A thumbnail of an image a message carries; a click opens it full size in a new tab. */
export function ImageThumb({ image, preview }: { image: ImageInfo; preview?: string }) {
  const load = useContext(ImageContext);
  const [state, setState] = useState<{ url?: string; error?: string }>({});
  useEffect(() => {
    if (!load) return;
    let url: string | undefined;
    let live = true;
    load(image.id).then(
      (item) => {
        const bytes = Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0));
        // A blob: URL, not a data: URL, so the CSP need not allow data: images.
        url = URL.createObjectURL(new Blob([bytes], { type: item.mimeType }));
        if (live) setState({ url });
      },
      (err: unknown) => {
        if (live) setState({ error: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [load, image.id]);
  const label = `image ${image.width}×${image.height}`;
  if (state.error) return <span className="msg-image-missing">{label} unavailable</span>;
  if (!state.url) {
    // This page's own copy while the stored one loads: no flicker after sending.
    if (preview) return <img className="msg-image" src={preview} alt={label} />;
    return <span className="msg-image-loading" aria-label={`loading ${label}`} />;
  }
  return (
    <a href={state.url} target="_blank" rel="noreferrer" className="msg-image-link">
      <img className="msg-image" data-testid="msg-image" src={state.url} alt={label} />
    </a>
  );
}

/** The images of a user message: stored ones by id, or this page's previews while it is sent. */
export function MessageImages({ images, previews }: { images?: ImageInfo[]; previews?: string[] }) {
  if (images && images.length > 0) {
    return (
      <div className="msg-images">
        {images.map((image, i) => (
          <ImageThumb key={`${image.id}-${i}`} image={image} preview={previews?.[i]} />
        ))}
      </div>
    );
  }
  if (previews && previews.length > 0) {
    return (
      <div className="msg-images">
        {previews.map((url) => (
          <img key={url} className="msg-image" data-testid="msg-image" src={url} alt="attached image" />
        ))}
      </div>
    );
  }
  return null;
}
