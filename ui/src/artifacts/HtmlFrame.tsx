/**
 * The policy written into every HTML artifact: nothing may load or run. The iframe's empty
 * `sandbox` already blocks scripts, forms, popups and same-origin access; the CSP also stops
 * network fetches (images, styles, fonts from anywhere) so opening an artifact never phones home.
 */
export const ARTIFACT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:";

/** HTML with the CSP meta tag first, before anything the document itself declares. */
export function withCsp(html: string): string {
  return `<!doctype html><meta http-equiv="Content-Security-Policy" content="${ARTIFACT_CSP}">${html}`;
}

/** An HTML artifact, rendered with no script, no network and no access to this page. */
export function HtmlFrame({ html, title }: { html: string; title: string }) {
  return (
    <iframe
      className="artifact-frame"
      sandbox=""
      referrerPolicy="no-referrer"
      srcDoc={withCsp(html)}
      title={title}
      data-testid="artifact-frame"
    />
  );
}
