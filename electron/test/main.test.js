'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { createApp } = require('../main');
const { stubElectron, stubSpawn, stubFetch } = require('./stubs');

const TOKEN_RE = /[0-9a-f]{64}/;

/** Start the app with stubs; returns everything a test inspects. */
async function started({ env = { GG_WORKSPACE: '/tmp/ws', GG_GGD: '/x/ggd' }, failures = 2, child = {}, dialogPaths = null } = {}) {
  const { electron, calls } = stubElectron({ dialogPaths });
  const { spawn, spawned } = stubSpawn(child);
  const { fetch, urls } = stubFetch(failures);
  const logs = [];
  const app = createApp({ electron, spawn, fetch, env, log: (l) => logs.push(l), graceMs: 20 });
  await app.start();
  return { app, electron, calls, spawned, urls, logs };
}

test('spawns ggd as a sidecar with a random token on a free loopback port', async () => {
  const { spawned, calls } = await started();
  assert.equal(spawned.length, 1);
  const { cmd, args, opts } = spawned[0];
  assert.equal(cmd, '/x/ggd');
  assert.equal(args[0], '--ws');
  assert.match(args[1], /^127\.0\.0\.1:\d+$/);
  assert.deepEqual(args.slice(2), ['--exit-on-stdin-eof', '--workspace', path.resolve('/tmp/ws')]);
  assert.ok(!args.includes('--token'), 'the token never goes on the command line');
  assert.match(opts.env.GG_TOKEN, /^[0-9a-f]{64}$/);
  assert.deepEqual(opts.stdio, ['pipe', 'ignore', 'pipe']);
  assert.equal(calls.dialogs, 0, 'GG_WORKSPACE skips the picker');
});

test('polls /healthz until ready, then loads the UI from ggd with the token in the fragment', async () => {
  const { spawned, urls, calls } = await started({ failures: 3 });
  const port = spawned[0].args[1].split(':')[1];
  const token = spawned[0].opts.env.GG_TOKEN;
  assert.equal(urls.length, 4);
  assert.ok(urls.every((u) => u === `http://127.0.0.1:${port}/healthz`));
  assert.equal(calls.windows.length, 1);
  assert.equal(calls.windows[0].loaded, `http://127.0.0.1:${port}/#token=${token}`);
});

test('the window is sandboxed, isolated, without Node, with our preload', async () => {
  const { calls } = await started();
  const prefs = calls.windows[0].options.webPreferences;
  assert.equal(prefs.contextIsolation, true);
  assert.equal(prefs.sandbox, true);
  assert.equal(prefs.nodeIntegration, false);
  assert.equal(prefs.webviewTag, false);
  assert.equal(prefs.preload, path.join(__dirname, '..', 'preload.js'));
});

test('navigation away is blocked; web links go to the system browser; window.open is denied', async () => {
  const { calls, spawned } = await started();
  const port = spawned[0].args[1].split(':')[1];
  const wc = calls.windows[0].webContents;
  assert.equal(wc.navigate('will-navigate', `http://127.0.0.1:${port}/#session=1`), false, 'own origin may reload');
  assert.equal(wc.navigate('will-navigate', 'https://example.com/x'), true);
  assert.equal(wc.navigate('will-redirect', 'http://127.0.0.1:9/evil'), true, 'another loopback port is foreign');
  assert.equal(wc.navigate('will-navigate', 'file:///etc/passwd'), true);
  assert.equal(wc.navigate('will-frame-navigate', 'javascript:alert(1)'), true);
  assert.deepEqual(wc.openHandler({ url: 'https://docs.example.org/' }), { action: 'deny' });
  assert.deepEqual(wc.openHandler({ url: 'file:///etc/passwd' }), { action: 'deny' });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(calls.external, ['https://example.com/x', 'http://127.0.0.1:9/evil', 'https://docs.example.org/']);
  let blocked = false;
  wc.emit('will-attach-webview', { preventDefault: () => (blocked = true) });
  assert.ok(blocked);
});

test('permission requests are refused', async () => {
  const { calls } = await started();
  let answer = null;
  calls.permission(null, 'notifications', (ok) => (answer = ok));
  assert.equal(answer, false);
});

test('the preload config goes only to our own page', async () => {
  const { electron, spawned } = await started();
  const port = spawned[0].args[1].split(':')[1];
  const ask = (url) => {
    const event = { senderFrame: { url } };
    electron.ipcMain.emit('gg:config', event);
    return event.returnValue;
  };
  assert.deepEqual(ask(`http://127.0.0.1:${port}/`), {
    endpoint: `ws://127.0.0.1:${port}/ws`,
    token: spawned[0].opts.env.GG_TOKEN,
    workspace: path.resolve('/tmp/ws'),
  });
  assert.equal(ask('https://evil.example/'), null);
  assert.equal(ask(`http://127.0.0.1:${port}.evil.example/`), null);
});

test('the token is never logged (ggd stderr is redacted)', async () => {
  const { electron, calls } = stubElectron();
  const { spawn, spawned } = stubSpawn();
  const logs = [];
  const app = createApp({ electron, spawn, fetch: stubFetch(1).fetch, env: { GG_WORKSPACE: '/w', GG_GGD: 'ggd' }, log: (l) => logs.push(l), graceMs: 20 });
  await app.start();
  const token = spawned[0].opts.env.GG_TOKEN;
  // ggd announces its URL, token included, on stderr: that line must reach the log redacted.
  spawned[0].child.stderr.write(`gg web UI: http://127.0.0.1:1/#token=${token}\n`);
  await new Promise((r) => setImmediate(r));
  electron.app.quit();
  await new Promise((r) => electron.app.once('quit', r));
  assert.ok(logs.some((l) => l.includes('#token=<token>')), 'the stderr line was logged, redacted');
  assert.ok(logs.length >= 3);
  for (const line of logs) assert.ok(!line.includes(token), `token leaked: ${line}`);
  assert.equal(calls.errors.length, 0);
});

test('quit closes ggd stdin and waits for it to exit before quitting', async () => {
  const { electron, spawned, logs } = await started();
  const child = spawned[0].child;
  const quit = new Promise((r) => electron.app.once('quit', r));
  electron.app.quit();
  await quit;
  assert.ok(child.stdinEnded);
  assert.deepEqual(child.signals, []);
  assert.ok(logs.includes('ggd stopped (eof)'));
});

test('quit escalates to SIGTERM when ggd ignores EOF', async () => {
  const { electron, spawned, logs } = await started({ child: { ignoreEof: true } });
  const quit = new Promise((r) => electron.app.once('quit', r));
  electron.app.quit();
  await quit;
  assert.deepEqual(spawned[0].child.signals, ['SIGTERM']);
  assert.ok(logs.includes('ggd stopped (sigterm)'));
});

test('without GG_WORKSPACE a folder picker asks; cancel quits without spawning', async () => {
  const picked = await started({ env: { GG_GGD: 'ggd' }, dialogPaths: ['/picked'] });
  assert.equal(picked.calls.dialogs, 1);
  assert.equal(picked.spawned[0].args[4], '/picked');
  const canceled = await started({ env: { GG_GGD: 'ggd' } });
  assert.equal(canceled.spawned.length, 0);
  assert.equal(canceled.calls.quit, 1);
});

test('ggd that never gets ready: error box, ggd stopped, app quits', async () => {
  const { electron, calls } = stubElectron();
  const { spawn, spawned } = stubSpawn();
  const app = createApp({
    electron, spawn, env: { GG_WORKSPACE: '/w', GG_GGD: 'ggd' }, log: () => {}, readyTimeoutMs: 30,
    fetch: async () => { throw new Error('refused'); },
  });
  await app.start();
  assert.equal(calls.windows.length, 0);
  assert.equal(calls.quit, 1);
  assert.match(calls.errors[0], /did not become ready/);
  assert.ok(!TOKEN_RE.test(calls.errors[0]));
  assert.ok(spawned[0].child.stdinEnded);
});

test('ggd dying unexpectedly shows an error and quits', async () => {
  const { calls, spawned } = await started();
  spawned[0].child.kill('SIGKILL');
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.match(calls.errors[0], /exited unexpectedly/);
  assert.equal(calls.quit, 1);
});
