'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

/** Run preload.js with a stubbed electron module; returns what it exposed and what it asked. */
function runPreload(config) {
  const exposed = {};
  const asked = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key, value) => (exposed[key] = value) },
    ipcRenderer: {
      sendSync: (channel) => {
        asked.push(channel);
        return config;
      },
    },
  };
  const src = fs.readFileSync(path.join(__dirname, '..', 'preload.js'), 'utf8');
  const fakeRequire = (name) => {
    if (name !== 'electron') throw new Error(`preload must not require ${name}`);
    return electron;
  };
  new Function('require', src)(fakeRequire);
  return { exposed, asked };
}

test('preload exposes exactly {endpoint, token, workspace}, frozen', () => {
  const { exposed, asked } = runPreload({ endpoint: 'ws://127.0.0.1:5/ws', token: 'abc', workspace: '/w', extra: 'nope' });
  assert.deepEqual(asked, ['gg:config']);
  assert.deepEqual(Object.keys(exposed), ['gg']);
  assert.deepEqual(exposed.gg, { endpoint: 'ws://127.0.0.1:5/ws', token: 'abc', workspace: '/w' });
  assert.ok(Object.isFrozen(exposed.gg));
});

test('preload on a refused frame exposes empty strings, not undefined', () => {
  const { exposed } = runPreload(null);
  assert.deepEqual(exposed.gg, { endpoint: '', token: '', workspace: '' });
});
