'use strict';
// Copy the web UI build (ggd/web, from `npm run build` in ui/) into media/web for the chat view.
const fs = require('node:fs');
const path = require('node:path');

const src = path.resolve(__dirname, '..', '..', '..', 'ggd', 'web');
const dest = path.resolve(__dirname, '..', 'media', 'web');
if (!fs.existsSync(path.join(src, 'index.html'))) {
  console.error(`no web UI build at ${src}: run "npm ci && npm run build" in ui/ first`);
  process.exit(1);
}
fs.rmSync(dest, { recursive: true, force: true });
fs.cpSync(src, dest, { recursive: true });
console.log(`copied the web UI build into ${dest}`);
