/**
 * server/router-speedups.ts replaces three methods of openapi-backend's router on gw's instance.
 * openapi-backend is pinned to one version; this test holds the replacements to the library's own
 * answers for every operation of the spec, so an upgrade that changes them fails here, loudly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenAPIBackend, type Operation, type Request } from 'openapi-backend';
import { loadSpec } from '../../core/spec-document.js';
import { parsesWithoutTemplate, speedUpRouter } from '../../server/router-speedups.js';

async function initialisedBackend(): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({ definition: loadSpec(), quick: true, validate: false, strict: false });
  await api.init();
  return api;
}

/** A request for `operation`: path parameters filled in, and a query with repeated and plain keys. */
function sampleRequest(operation: Operation): Request {
  const path = operation.path.replace(/\{[^}]+\}/g, (name) => `p-${name.slice(1, -1)}`);
  return {
    method: operation.method,
    path,
    query: 'limit=2&order=desc&tag=a&tag=b&metadata[env]=prod',
    headers: { 'content-type': 'application/json', 'x-gw-provider': 'openai' },
    body: '{}',
  };
}

test('the router keeps the methods the speed-ups replace', async () => {
  const { router } = await initialisedBackend();
  for (const method of ['getOperations', 'getOperation', 'parseRequest'] as const) {
    assert.equal(typeof router[method], 'function', `openapi-backend's router has no ${method} any more: see server/router-speedups.ts`);
  }
});

test('the replaced router answers what openapi-backend itself answers, for every operation of the spec', async () => {
  const library = (await initialisedBackend()).router;
  const fastApi = await initialisedBackend();
  speedUpRouter(fastApi);
  const fast = fastApi.router;

  const operations = library.getOperations();
  assert.deepEqual(fast.getOperations(), operations);
  const plain = operations.filter(parsesWithoutTemplate);
  assert.ok(plain.some((operation) => operation.operationId === 'createChatCompletion'), 'the hot paths take the shortcut');
  assert.ok(plain.length < operations.length, 'operations with path parameters keep the template');

  for (const operation of operations) {
    const id = operation.operationId as string;
    assert.deepEqual(fast.getOperation(id), library.getOperation(id), id);
    const request = sampleRequest(operation);
    assert.deepEqual(fast.parseRequest(request, fast.getOperation(id)), library.parseRequest(request, operation), `parseRequest of ${id}`);
  }
});
