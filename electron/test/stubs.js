'use strict';
// Stand-ins for the electron module and for a ggd child process, recording what main.js does.
const { EventEmitter } = require('node:events');
const { PassThrough } = require('node:stream');

class StubWebContents extends EventEmitter {
  constructor() {
    super();
    /** @type {((d: {url: string}) => {action: string}) | null} */
    this.openHandler = null;
  }
  /** @param {(d: {url: string}) => {action: string}} fn */
  setWindowOpenHandler(fn) {
    this.openHandler = fn;
  }
  /** Emit a navigation the way Electron does; returns true when it was blocked. */
  navigate(event, url) {
    let prevented = false;
    this.emit(event, { url, preventDefault: () => (prevented = true) }, url);
    return prevented;
  }
}

/** A fake electron module. */
function stubElectron({ dialogPaths = null } = {}) {
  const calls = { windows: [], external: [], errors: [], quit: 0, dialogs: 0, permission: null };
  const app = new EventEmitter();
  app.whenReady = () => Promise.resolve();
  app.quit = () => {
    calls.quit++;
    // Electron emits will-quit; a handler may preventDefault to hold the quit.
    let prevented = false;
    app.emit('will-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) app.emit('quit');
  };
  class BrowserWindow extends EventEmitter {
    constructor(options) {
      super();
      this.options = options;
      this.webContents = new StubWebContents();
      this.loaded = null;
      calls.windows.push(this);
    }
    loadURL(url) {
      this.loaded = url;
      return Promise.resolve();
    }
    show() {}
  }
  const ipcMain = new EventEmitter();
  const electron = {
    app,
    BrowserWindow,
    ipcMain,
    shell: { openExternal: async (url) => void calls.external.push(url) },
    dialog: {
      showOpenDialog: async () => {
        calls.dialogs++;
        return dialogPaths ? { canceled: false, filePaths: dialogPaths } : { canceled: true, filePaths: [] };
      },
      showErrorBox: (title, body) => calls.errors.push(`${title}: ${body}`),
    },
    session: { defaultSession: { setPermissionRequestHandler: (fn) => (calls.permission = fn) } },
  };
  return { electron, calls };
}

/**
 * A fake ggd child: exits on stdin EOF unless ignoreEof; kill() records signals and exits unless
 * ignoreTerm.
 */
function stubChild({ ignoreEof = false, ignoreTerm = false, stderrLines = [] } = {}) {
  const child = new EventEmitter();
  child.exitCode = null;
  child.signalCode = null;
  child.signals = [];
  child.stdinEnded = false;
  child.stderr = new PassThrough();
  child.stdin = new PassThrough();
  const exit = (code, signal) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.exitCode = code;
    child.signalCode = signal;
    setImmediate(() => child.emit('exit', code, signal));
  };
  child.stdin.on('finish', () => {
    child.stdinEnded = true;
    if (!ignoreEof) exit(0, null);
  });
  child.kill = (sig) => {
    child.signals.push(sig);
    if (sig === 'SIGKILL' || !ignoreTerm) exit(null, sig);
    return true;
  };
  setImmediate(() => stderrLines.forEach((l) => child.stderr.write(`${l}\n`)));
  return child;
}

/** A spawn() that records its calls and returns stub children. */
function stubSpawn(childOptions = {}) {
  const spawned = [];
  const spawn = (cmd, args, opts) => {
    const child = stubChild(typeof childOptions === 'function' ? childOptions(args) : childOptions);
    spawned.push({ cmd, args, opts, child });
    return child;
  };
  return { spawn, spawned };
}

/** A fetch() for /healthz that fails `failures` times, then answers 200. */
function stubFetch(failures = 0) {
  const urls = [];
  const fetch = async (url) => {
    urls.push(url);
    if (urls.length <= failures) throw new Error('ECONNREFUSED');
    return { status: 200 };
  };
  return { fetch, urls };
}

module.exports = { stubElectron, stubChild, stubSpawn, stubFetch };
