'use strict';
/**
 * The main window and its guards: sandboxed, context-isolated renderer that may only show ggd's own
 * origin; other http(s) links open in the user's browser, everything else is dropped.
 */

/**
 * True when url has the same origin as appOrigin.
 * @param {string} url
 * @param {string} appOrigin
 */
function sameOrigin(url, appOrigin) {
  try {
    return new URL(url).origin === appOrigin;
  } catch {
    return false;
  }
}

/**
 * True for http: and https: URLs (the only ones handed to the system browser).
 * @param {string} url
 */
function isExternalWeb(url) {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The BrowserWindow options: no Node in the renderer, sandboxed, isolated, only our preload.
 * @param {string} preload absolute path of preload.js
 */
function windowOptions(preload) {
  return {
    width: 1200,
    height: 840,
    show: false,
    title: 'gg',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  };
}

/**
 * Block navigation away from appOrigin and every window.open; web links go to shell.openExternal.
 * @param {any} webContents Electron WebContents (or a stub)
 * @param {string} appOrigin e.g. "http://127.0.0.1:PORT"
 * @param {{openExternal: (url: string) => Promise<void>}} shell
 */
function guardNavigation(webContents, appOrigin, shell) {
  /** @param {string} url */
  const external = (url) => {
    if (isExternalWeb(url) && !sameOrigin(url, appOrigin)) {
      shell.openExternal(url).catch(() => {});
    }
  };
  /** @param {any} event @param {string} [url] */
  const onNavigate = (event, url) => {
    const target = url ?? event.url;
    if (sameOrigin(target, appOrigin)) return; // reloads and in-app fragments
    event.preventDefault();
    external(target);
  };
  webContents.on('will-navigate', onNavigate);
  webContents.on('will-redirect', onNavigate);
  webContents.on('will-frame-navigate', onNavigate);
  webContents.setWindowOpenHandler((/** @type {{url: string}} */ { url }) => {
    external(url);
    return { action: 'deny' };
  });
  webContents.on('will-attach-webview', (/** @type {any} */ event) => event.preventDefault());
}

/**
 * Create the window, guard it, and load the web UI from ggd.
 * @param {{BrowserWindow: any, shell: any, preload: string, appOrigin: string, url: string}} o
 * @returns {any} the BrowserWindow
 */
function createMainWindow(o) {
  const win = new o.BrowserWindow(windowOptions(o.preload));
  guardNavigation(win.webContents, o.appOrigin, o.shell);
  win.once('ready-to-show', () => win.show());
  win.loadURL(o.url);
  return win;
}

module.exports = { sameOrigin, isExternalWeb, windowOptions, guardNavigation, createMainWindow };
