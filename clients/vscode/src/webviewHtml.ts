// Turns the web UI build's index.html into a webview page: asset URLs mapped to webview URIs, a strict
// CSP (no network: everything goes through postMessage), and a marker so the UI picks the bridge.
// No vscode import.

/** Rewrite the built index.html for a webview. */
export function webviewHtml(indexHtml: string, o: { assetBase: string; cspSource: string; nonce: string }): string {
  const base = o.assetBase.replace(/\/+$/, "");
  // Vite emits absolute (/assets/x.js) or relative (./assets/x.js) URLs depending on `base`.
  let html = indexHtml.replace(/\b(src|href)="(?:\.?\/)?(assets\/[^"]+|[^"/:]+\.(?:svg|png|ico|css|js))"/g, (_m, attr: string, p: string) => `${attr}="${base}/${p}"`);
  html = html.replace(/<script(?![^>]*\bnonce=)/g, `<script nonce="${o.nonce}"`);
  const csp = [
    "default-src 'none'",
    // blob: for images the page fetched by id (gg/image.get, gg/media.get) and pasted thumbnails.
    `img-src ${o.cspSource} data: blob:`,
    `style-src ${o.cspSource} 'unsafe-inline'`,
    `font-src ${o.cspSource}`,
    `script-src 'nonce-${o.nonce}' ${o.cspSource}`,
    "connect-src 'none'",
  ].join("; ");
  const head = `<meta http-equiv="Content-Security-Policy" content="${csp}">\n<script nonce="${o.nonce}">window.__GG_TRANSPORT__ = "vscode";</script>`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (h) => `${h}\n${head}`) : `${head}\n${html}`;
}

/** The page shown when the web UI build is missing from the extension. */
export function missingUiHtml(cspSource: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'"></head>
<body><p>The gg web UI is not bundled in this extension build.</p>
<p>Build it with <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>, then <code>npm run copy-web</code> in <code>clients/vscode/</code>. Commands (gg: Ask, gg: Open Sessions) still work; answers stream to the "gg" output channel.</p></body></html>`;
}

/** A random nonce for the CSP. */
export function makeNonce(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(16)).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}
