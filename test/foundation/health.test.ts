/**
 * GET /health names two versions that change separately: gw's release (the newest CHANGELOG.md
 * heading, package.json's version) and the HTTP API's version (the spec's info.version).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const newestRelease = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8').match(/^## v(\d+\.\d+\.\d+)/m)?.[1];
const packageVersion = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const specVersion = (JSON.parse(readFileSync(path.join(ROOT, 'generated/openapi.json'), 'utf8')) as { info: { version: string } }).info.version;

let app: TestApp;
before(async () => {
  app = await startTestApp();
});
after(() => app.close());

test('/health answers the release as version and the API version as api_version', async () => {
  const health = await app.http.get('/health');
  assert.equal(health.status, 200);
  assert.deepEqual(health.body, { status: 'ok', version: newestRelease, api_version: specVersion });
  assert.equal(specVersion, '2.0.0');
});

test("package.json's version is the release", () => {
  assert.ok(newestRelease, 'CHANGELOG.md names a release');
  assert.equal(packageVersion, newestRelease);
});
