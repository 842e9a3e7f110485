/** gw serves its own spec at /openapi.json and a self-contained, browsable reference at /reference. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('/openapi.json and /reference', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('/openapi.json is the bundled spec gw validates against, without a key', async () => {
    const response = await app.http.get('/openapi.json');
    assert.equal(response.status, 200);
    assert.match(response.headers['content-type']!, /application\/json/);
    assert.deepEqual(response.body, JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi.json'), 'utf8')));
  });

  it('/reference lists every operation, loads nothing from elsewhere, and escapes the spec text', async () => {
    const response = await app.http.get('/reference');
    assert.equal(response.status, 200);
    assert.match(response.headers['content-type']!, /text\/html/);
    const html = response.text;
    const spec = (await app.http.get('/openapi.json')).body as { paths: Record<string, Record<string, { operationId?: string }>> };
    for (const item of Object.values(spec.paths)) for (const op of Object.values(item)) if (op.operationId) assert.ok(html.includes(`id="op-${op.operationId}"`), op.operationId);
    const links = [...html.matchAll(/href="#(schema-[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(links.length > 20, 'schema $refs are links');
    for (const target of new Set(links)) assert.ok(html.includes(`id="${target}"`), `${target} has its section`);
    assert.doesNotMatch(html, /<script|<link|src="http|href="http|@import/i, 'no script, stylesheet or asset from elsewhere');
    assert.doesNotMatch(html, /<(?!\/?(?:html|head|meta|title|style|body|nav|main|strong|br|a|h1|h2|h3|p|section|span|code|pre|table|tr|th|td|details|summary)\b)[a-z]/i, 'only the page\'s own tags');
  });
});
