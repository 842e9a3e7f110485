/**
 * How gw serves the console's files (server/console.ts): index.html for client routes and never
 * cached, hashed assets cached as immutable, a strict CSP, and a clear answer when it is not built.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { CONSOLE_CSP, consoleDocumentCsp, consoleRouter } from '../../server/console.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const INDEX = '<!doctype html><head><title>gw console</title></head><script type="module" src="/console/assets/app-abc123.js"></script>';

function appServing(dist: string) {
  const app = express();
  app.use('/console', consoleRouter(dist));
  app.use((_req, res) => void res.status(418).send('not the console'));
  return supertest(app);
}

describe('the console files', () => {
  let dist: string;
  before(() => {
    dist = mkdtempSync(path.join(tmpdir(), 'gw-console-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), INDEX);
    writeFileSync(path.join(dist, 'assets', 'app-abc123.js'), 'console.log("gw")');
  });
  after(() => rmSync(dist, { recursive: true, force: true }));

  test('/console and every client route answer index.html, not cached, with the CSP', async () => {
    const http = appServing(dist);
    for (const url of ['/console', '/console/', '/console/logs', '/console/logs/0193-abc', '/console/configs/new?x=1']) {
      const res = await http.get(url);
      assert.equal(res.status, 200, url);
      const nonce = /<meta name="gw-style-nonce" content="([A-Za-z0-9+/=]{24})">/.exec(res.text)?.[1];
      assert.ok(nonce, `${url}: a style nonce in the page`);
      assert.equal(res.text.replace(`<meta name="gw-style-nonce" content="${nonce}">`, ''), INDEX, url);
      assert.match(res.headers['content-type']!, /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      // The same policy, with style elements stamped with this page's nonce allowed; scripts as strict.
      assert.equal(res.headers['content-security-policy'], consoleDocumentCsp(nonce));
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`));
      assert.match(res.headers['content-security-policy']!, /script-src 'self';/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
  });

  test('the CSP allows this origin only: no inline script, no other host', () => {
    assert.match(CONSOLE_CSP, /default-src 'none'/);
    assert.match(CONSOLE_CSP, /script-src 'self'(;|$)/);
    assert.match(CONSOLE_CSP, /connect-src 'self'(;|$)/);
    assert.match(CONSOLE_CSP, /frame-ancestors 'none'/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|https?:|\*/);
  });

  test('hashed assets are cached for a year as immutable; a missing one is 404 in the error body, not index.html', async () => {
    const http = appServing(dist);
    const asset = await http.get('/console/assets/app-abc123.js');
    assert.equal(asset.status, 200);
    assert.match(asset.headers['content-type']!, /javascript/);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(asset.headers['content-security-policy'], CONSOLE_CSP);
    const missing = await http.get('/console/assets/gone-000.js');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  test('a path that climbs out of web/dist gets index.html, never the file', async () => {
    const res = await appServing(dist).get('/console/..%2f..%2fetc%2fpasswd');
    assert.notEqual(res.status, 500);
    assert.doesNotMatch(res.text, /root:/);
  });

  test('only GET and HEAD: a POST is 405 with Allow, in the error body', async () => {
    const res = await appServing(dist).post('/console/logs').send({});
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET, HEAD');
    assert.equal(res.body.error.code, 'method_not_allowed');
  });

  test('paths beside /console are not the console', async () => {
    assert.equal((await appServing(dist).get('/consoles')).status, 418);
  });

  test('without a build, /console says to run make build', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'gw-console-empty-'));
    try {
      const res = await appServing(path.join(empty, 'dist')).get('/console/logs');
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'console_not_built');
      assert.match(res.body.error.message, /make build/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('gw serves the console at /console', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  test('through createApp, with the CSP, built or not; the API beside it is unchanged', async () => {
    const res = await app.http.get('/console/');
    assert.ok(res.status === 200 || res.status === 503, String(res.status));
    // Built: index.html's policy, with its style nonce; not built: the 503 error with the plain policy.
    const nonce = /content="([^"]+)"/.exec(res.text ?? '')?.[1];
    assert.equal(res.headers['content-security-policy'], res.status === 200 ? consoleDocumentCsp(nonce!) : CONSOLE_CSP);
    assert.equal((await app.http.get('/health')).status, 200);
  });

  test('GET / leads to the console; HEAD / stays the API\'s probe and other methods its errors', async () => {
    for (const url of ['/', '/?from=bookmark']) {
      const res = await app.http.get(url).redirects(0);
      assert.equal(res.status, 302, url);
      assert.equal(res.headers.location, '/console/');
    }
    assert.equal((await app.http.head('/').redirects(0)).status, 200);
    const post = await app.http.post('/').send({});
    assert.notEqual(post.status, 302);
    assert.ok(post.body.error, 'an error body from the API');
  });
});
