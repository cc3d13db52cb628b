'use strict';
// main.js with a stubbed electron module but a REAL ggd child and real HTTP (run from pytest with GG_GGD).
const test = require('node:test');
const assert = require('node:assert/strict');
const { createApp } = require('../main');
const { stubElectron } = require('./stubs');

const ggd = process.env.GG_GGD;

test('real ggd: ready, serves its UI with the token, stops on quit by stdin EOF', { skip: ggd ? false : 'needs GG_GGD, GG_HOME and GG_WORKSPACE: pytest runs it (tests/e2e/clients/test_electron.py)' }, async () => {
  const { electron, calls } = stubElectron();
  const logs = [];
  const app = createApp({ electron, env: process.env, log: (l) => logs.push(l), graceMs: 2000 });
  await app.start();
  assert.deepEqual(calls.errors, []);
  const url = new URL(calls.windows[0].loaded);
  const token = url.hash.slice('#token='.length);
  assert.match(token, /^[0-9a-f]{64}$/);
  const base = `${url.origin}`;
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  assert.equal((await fetch(`${base}/health`)).status, 401);
  assert.equal((await fetch(`${base}/health`, { headers: { Authorization: `Bearer ${token}` } })).status, 200);
  const child = app.state.sidecar.child;
  const started = Date.now();
  electron.app.quit();
  await new Promise((r) => electron.app.once('quit', r));
  assert.notEqual(child.exitCode ?? child.signalCode, null);
  assert.ok(logs.includes('ggd stopped (eof)'), `ggd should exit on stdin EOF: ${logs.join(' | ')}`);
  assert.ok(Date.now() - started < 2000);
  for (const line of logs) assert.ok(!line.includes(token), 'token leaked into the log');
  process.stdout.write(`# logs: ${JSON.stringify(logs)}\n`);
});
