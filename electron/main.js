'use strict';
/**
 * gg desktop: the Electron main process. It starts a private ggd (`ggd --ws` on a free loopback port,
 * a random token, stdin as the control pipe), waits for /healthz, and shows ggd's own web UI in a
 * sandboxed window. It holds no agent logic: everything else is the gg protocol, spoken by the UI.
 */

const path = require('node:path');
const childProcess = require('node:child_process');
const { startSidecar, findGgd } = require('./lib/sidecar');
const { createMainWindow } = require('./lib/window');

/**
 * @typedef {object} Deps
 * @property {any} electron the electron module (or a stub in tests)
 * @property {typeof childProcess.spawn} [spawn]
 * @property {NodeJS.ProcessEnv} [env]
 * @property {typeof fetch} [fetch]
 * @property {(line: string) => void} [log]
 * @property {number} [graceMs] how long ggd gets after its stdin closes before SIGTERM
 * @property {number} [readyTimeoutMs]
 */

/**
 * Wire the app: returns {start, stop, state} without touching Electron until start() runs.
 * @param {Deps} deps
 */
function createApp(deps) {
  const { app, BrowserWindow, dialog, shell, ipcMain, session } = deps.electron;
  const env = deps.env || process.env;
  const log = deps.log || ((line) => console.log(`[gg] ${line}`));
  /** @type {{sidecar: any, window: any, workspace: string | null, quitting: boolean, stopped: boolean}} */
  const state = { sidecar: null, window: null, workspace: null, quitting: false, stopped: false };

  /** @returns {Promise<string | null>} */
  async function pickWorkspace() {
    if (env.GG_WORKSPACE) return path.resolve(env.GG_WORKSPACE);
    const res = await dialog.showOpenDialog({
      title: 'Open a workspace for gg',
      properties: ['openDirectory', 'createDirectory'],
    });
    if (res.canceled || !res.filePaths || res.filePaths.length === 0) return null;
    return res.filePaths[0];
  }

  /** Stop ggd once (close stdin, then SIGTERM after the grace). */
  async function stop() {
    if (state.stopped || !state.sidecar) return;
    state.stopped = true;
    const how = await state.sidecar.stop(deps.graceMs);
    log(`ggd stopped (${how})`);
  }

  async function start() {
    await app.whenReady();
    // No page gets camera, notifications or the like: the UI needs none.
    session?.defaultSession?.setPermissionRequestHandler?.(
      (/** @type {unknown} */ _wc, /** @type {string} */ _perm, /** @type {(ok: boolean) => void} */ cb) => cb(false),
    );
    const workspace = await pickWorkspace();
    if (!workspace) {
      app.quit();
      return;
    }
    state.workspace = workspace;
    try {
      state.sidecar = await startSidecar({
        spawn: deps.spawn || childProcess.spawn,
        ggd: findGgd(env),
        workspace,
        env,
        log,
        fetch: deps.fetch,
        timeoutMs: deps.readyTimeoutMs,
      });
    } catch (err) {
      dialog.showErrorBox('gg could not start', `${err instanceof Error ? err.message : err}. Is ggd installed?`);
      app.quit();
      return;
    }
    const sidecar = state.sidecar;
    log(`ggd ready on 127.0.0.1:${sidecar.port} for ${workspace}`);
    sidecar.child.once('exit', () => {
      state.stopped = true;
      if (!state.quitting) {
        dialog.showErrorBox('gg stopped', 'The gg daemon exited unexpectedly.');
        app.quit();
      }
    });
    const appOrigin = `http://127.0.0.1:${sidecar.port}`;
    ipcMain.on('gg:config', (/** @type {any} */ event) => {
      // Only our own page may ask: never a frame from elsewhere.
      const url = event.senderFrame?.url ?? '';
      event.returnValue = url.startsWith(`${appOrigin}/`)
        ? { endpoint: sidecar.endpoint, token: sidecar.token, workspace }
        : null;
    });
    state.window = createMainWindow({
      BrowserWindow,
      shell,
      preload: path.join(__dirname, 'preload.js'),
      appOrigin,
      url: sidecar.url,
    });
  }

  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', (/** @type {any} */ event) => {
    state.quitting = true;
    if (state.sidecar && !state.stopped) {
      // Hold the quit until ggd is down, then quit for real.
      event.preventDefault();
      stop().finally(() => app.quit());
    }
  });

  return { start, stop, state };
}

module.exports = { createApp };

if (require.main === module && process.versions.electron) {
  const electron = require('electron');
  createApp({ electron })
    .start()
    .catch((err) => {
      console.error(`[gg] ${err instanceof Error ? err.message : err}`);
      electron.app.exit(1);
    });
}
