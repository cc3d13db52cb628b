/**
 * Images pasted or dropped into the composer, made ready for gg/run.start `images`.
 *
 * One JSON-RPC message is at most 4 MiB, so an image is sent as base64 of at most MAX_BYTES;
 * a larger one (or one over MAX_EDGE pixels) is scaled down here in a canvas first, as the
 * daemon would do anyway (docs/web-ui.md).
 */

export interface Attachment {
  name: string;
  mimeType: string;
  /** Base64 of the bytes sent. */
  data: string;
  /** A blob: URL for the thumbnail (revoke when dropped). */
  url: string;
  size: number;
}

export const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
/** All attachments of one message together (base64 adds a third; the rest is the prompt). */
export const MAX_BYTES = 2_900_000;
export const MAX_EDGE = 2048;

function base64Of(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

async function shrink(file: Blob, name: string): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, MAX_EDGE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error(`${name}: this browser cannot scale images`);
  ctx.fillStyle = "#fff"; // JPEG has no transparency: flatten onto white, as viewers show it
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
  if (!blob) throw new Error(`${name}: could not be scaled down`);
  return blob;
}

/** An attachment from a pasted or dropped file; throws an Error whose message says why not. */
export async function prepareImage(file: File): Promise<Attachment> {
  const name = file.name || "pasted image";
  if (!IMAGE_TYPES.has(file.type)) {
    throw new Error(`${name}: not a PNG, JPEG, WebP or GIF image`);
  }
  let blob: Blob = file;
  if (file.size > MAX_BYTES) blob = await shrink(file, name);
  if (blob.size > MAX_BYTES) {
    throw new Error(`${name}: still ${(blob.size / 1e6).toFixed(1)} MB after scaling; the limit is 2.9 MB`);
  }
  const bytes = new Uint8Array(await blob.arrayBuffer());
  return { name, mimeType: blob.type, data: base64Of(bytes), url: URL.createObjectURL(blob), size: blob.size };
}

/** The image files of a paste or a drop (other items are left to the browser). */
export function imageFiles(list: DataTransfer | null): File[] {
  if (!list) return [];
  return Array.from(list.files).filter((f) => f.type.startsWith("image/"));
}
