'use strict';
/**
 * The ggd sidecar: a private `ggd --ws` child on a free loopback port with a random token.
 * Everything here takes its dependencies as arguments so it runs under plain Node in tests.
 */

const crypto = require('node:crypto');
const net = require('node:net');
const path = require('node:path');
const fs = require('node:fs');

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */

/**
 * A random 32-byte token, hex encoded.
 * @param {(n: number) => Buffer} [randomBytes]
 * @returns {string}
 */
function makeToken(randomBytes = crypto.randomBytes) {
  return randomBytes(32).toString('hex');
}

/**
 * A free TCP port on 127.0.0.1 (bound, read, released).
 * @returns {Promise<number>}
 */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The ggd command line for a desktop sidecar.
 * @param {{port: number, token: string, workspace: string}} o
 * @returns {string[]}
 */
function ggdArgs({ port, token, workspace }) {
  // The token travels in the environment (GG_TOKEN), never on the command line, where any local
  // user could read it from /proc/<pid>/cmdline.
  return ['--ws', `127.0.0.1:${port}`, '--exit-on-stdin-eof', '--workspace', workspace];
}

/**
 * Locate ggd: $GG_GGD, else the first `ggd` on PATH, else plain "ggd".
 * @param {NodeJS.ProcessEnv} env
 * @param {(p: string) => boolean} [isExecutable]
 * @returns {string}
 */
function findGgd(env, isExecutable = defaultIsExecutable) {
  if (env.GG_GGD) return env.GG_GGD;
  for (const dir of (env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'ggd');
    if (isExecutable(candidate)) return candidate;
  }
  return 'ggd';
}

/** @param {string} p */
function defaultIsExecutable(p) {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Replace every occurrence of the token (so logs never carry it).
 * @param {string} text
 * @param {string} token
 * @returns {string}
 */
function redact(text, token) {
  return token ? text.split(token).join('<token>') : text;
}

/**
 * Poll `GET {base}/healthz` until it answers 200; reject on timeout or when the child exits first.
 * @param {string} base e.g. "http://127.0.0.1:PORT"
 * @param {{fetch?: typeof fetch, timeoutMs?: number, intervalMs?: number, exited?: () => boolean,
 *          now?: () => number, delay?: (ms: number) => Promise<void>}} [o]
 * @returns {Promise<number>} the number of attempts it took
 */
async function waitHealthy(base, o = {}) {
  const doFetch = o.fetch || fetch;
  const timeoutMs = o.timeoutMs ?? 15000;
  const intervalMs = o.intervalMs ?? 50;
  const now = o.now || Date.now;
  const delay = o.delay || ((ms) => new Promise((r) => setTimeout(r, ms)));
  const deadline = now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    if (o.exited && o.exited()) throw new Error('ggd exited before it was ready');
    try {
      const res = await doFetch(`${base}/healthz`, { signal: AbortSignal.timeout(Math.max(intervalMs * 20, 1000)) });
      if (res.status === 200) return attempt;
    } catch {
      // Not listening yet: keep polling until the deadline.
    }
    if (now() >= deadline) throw new Error(`ggd did not become ready within ${timeoutMs} ms`);
    await delay(intervalMs);
  }
}

/**
 * Stop the sidecar: close its stdin (ggd exits on EOF), SIGTERM after graceMs, SIGKILL after another.
 * @param {ChildProcess} child
 * @param {{graceMs?: number}} [o]
 * @returns {Promise<'eof'|'sigterm'|'sigkill'|'already'>} how it ended
 */
function stopSidecar(child, o = {}) {
  const graceMs = o.graceMs ?? 2000;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve('already');
  return new Promise((resolve) => {
    /** @type {'eof'|'sigterm'|'sigkill'} */
    let how = 'eof';
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const onExit = () => {
      clearTimeout(timer);
      resolve(how);
    };
    child.once('exit', onExit);
    const escalate = () => {
      if (how === 'eof') {
        how = 'sigterm';
        child.kill('SIGTERM');
        timer = setTimeout(escalate, graceMs);
      } else {
        how = 'sigkill';
        child.kill('SIGKILL');
      }
    };
    timer = setTimeout(escalate, graceMs);
    try {
      if (child.stdin) child.stdin.end();
    } catch {
      // A broken pipe means the child is already going away; the timer still covers it.
    }
  });
}

/**
 * Spawn ggd as a sidecar and wait until it is ready.
 * @param {{spawn: typeof import('node:child_process').spawn, ggd: string, workspace: string,
 *          env?: NodeJS.ProcessEnv, port?: number, token?: string, log?: (line: string) => void,
 *          fetch?: typeof fetch, timeoutMs?: number}} o
 * @returns {Promise<{child: ChildProcess, port: number, token: string, endpoint: string,
 *          http: string, url: string, stop: (graceMs?: number) => Promise<string>}>}
 */
async function startSidecar(o) {
  const port = o.port ?? (await freePort());
  const token = o.token ?? makeToken();
  const log = o.log || (() => {});
  const child = o.spawn(o.ggd, ggdArgs({ port, token, workspace: o.workspace }), {
    env: { ...(o.env || process.env), GG_TOKEN: token },
    cwd: o.workspace,
    // stdin is the control pipe: ggd exits when it closes (also when this process dies).
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let exited = false;
  child.once('exit', (code, signal) => {
    exited = true;
    log(`ggd exited (code ${code}, signal ${signal})`);
  });
  child.once('error', (err) => {
    exited = true;
    log(`ggd could not start: ${err.message}`);
  });
  if (child.stderr) {
    child.stderr.setEncoding?.('utf8');
    child.stderr.on('data', (chunk) => {
      for (const line of String(chunk).split('\n')) if (line.trim()) log(`ggd: ${redact(line, token)}`);
    });
  }
  const http = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(http, { fetch: o.fetch, timeoutMs: o.timeoutMs, exited: () => exited });
  } catch (err) {
    if (!exited) await stopSidecar(child, { graceMs: 500 });
    throw err;
  }
  return {
    child,
    port,
    token,
    endpoint: `ws://127.0.0.1:${port}/ws`,
    http: `${http}/`,
    url: `${http}/#token=${token}`,
    stop: (graceMs) => stopSidecar(child, { graceMs }),
  };
}

module.exports = { makeToken, freePort, ggdArgs, findGgd, redact, waitHealthy, stopSidecar, startSidecar };
