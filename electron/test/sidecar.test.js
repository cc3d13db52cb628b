'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { makeToken, freePort, ggdArgs, findGgd, redact, waitHealthy, stopSidecar } = require('../lib/sidecar');
const { stubChild } = require('./stubs');

test('token is 32 random bytes in hex', () => {
  const token = makeToken();
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.notEqual(makeToken(), token);
  assert.equal(makeToken((n) => Buffer.alloc(n, 0xab)), 'ab'.repeat(32));
});

test('free port is a bindable loopback port', async () => {
  const port = await freePort();
  assert.ok(port > 0 && port < 65536);
  const srv = net.createServer();
  await new Promise((resolve, reject) => srv.once('error', reject).listen(port, '127.0.0.1', resolve));
  srv.close();
});

test('ggd arguments', () => {
  assert.deepEqual(ggdArgs({ port: 4242, token: 't0k', workspace: '/w' }), [
    '--ws', '127.0.0.1:4242', '--exit-on-stdin-eof', '--workspace', '/w',
  ]);
});

test('findGgd prefers GG_GGD, then PATH', () => {
  assert.equal(findGgd({ GG_GGD: '/opt/ggd', PATH: '/bin' }), '/opt/ggd');
  assert.equal(findGgd({ PATH: '/a:/b' }, (p) => p === '/b/ggd'), '/b/ggd');
  assert.equal(findGgd({ PATH: '/a' }, () => false), 'ggd');
});

test('redact removes every copy of the token', () => {
  assert.equal(redact('gg web UI: http://127.0.0.1:1/#token=abc and abc', 'abc'), 'gg web UI: http://127.0.0.1:1/#token=<token> and <token>');
});

test('waitHealthy polls a real server until /healthz answers 200', async () => {
  let hits = 0;
  const srv = http.createServer((req, res) => {
    hits++;
    res.statusCode = req.url === '/healthz' && hits >= 3 ? 200 : 503;
    res.end('ok');
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
  try {
    const attempts = await waitHealthy(`http://127.0.0.1:${port}`, { intervalMs: 5 });
    assert.equal(attempts, 3);
  } finally {
    srv.close();
  }
});

test('waitHealthy gives up at the deadline and when the child exits', async () => {
  let t = 0;
  const fail = async () => {
    throw new Error('refused');
  };
  await assert.rejects(
    waitHealthy('http://x', { fetch: fail, timeoutMs: 100, intervalMs: 10, now: () => t, delay: async (ms) => void (t += ms) }),
    /did not become ready within 100 ms/,
  );
  await assert.rejects(waitHealthy('http://x', { fetch: fail, exited: () => true }), /exited before it was ready/);
});

test('stop closes stdin first and needs no signal when ggd exits on EOF', async () => {
  const child = stubChild();
  assert.equal(await stopSidecar(child, { graceMs: 1000 }), 'eof');
  assert.ok(child.stdinEnded);
  assert.deepEqual(child.signals, []);
});

test('stop sends SIGTERM after the grace, then SIGKILL', async () => {
  const stubborn = stubChild({ ignoreEof: true });
  assert.equal(await stopSidecar(stubborn, { graceMs: 10 }), 'sigterm');
  assert.deepEqual(stubborn.signals, ['SIGTERM']);
  const deaf = stubChild({ ignoreEof: true, ignoreTerm: true });
  assert.equal(await stopSidecar(deaf, { graceMs: 10 }), 'sigkill');
  assert.deepEqual(deaf.signals, ['SIGTERM', 'SIGKILL']);
  assert.equal(await stopSidecar(deaf, { graceMs: 10 }), 'already');
});
