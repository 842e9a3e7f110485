import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handlers } from '../../handlers/index.js';
import type { Handler } from '../../handlers/types.js';
import { assertValidSpec, createApi } from '../../server/api.js';
import { loadSpec } from '../../server/app.js';
import { startTestApp } from '../helpers/test-app.js';

const METHODS = ['get', 'head', 'put', 'post', 'delete', 'patch'] as const;

function operations() {
  const spec = loadSpec();
  return Object.entries(spec.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({
      path,
      method,
      operation: (item as Record<string, Record<string, unknown>>)[method]!,
    })),
  );
}

describe('the spec and the handlers', () => {
  test('the bundled spec is valid OpenAPI 3.1 with version 2.0.0', async () => {
    const spec = loadSpec();
    assert.equal(spec.openapi, '3.1.0');
    assert.equal(spec.info.version, '2.0.0');
    await assertValidSpec(spec);
  });

  test('every operation has a handler, and every handler an operation', () => {
    const ids = operations().map((o) => o.operation.operationId as string);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.deepEqual([...ids].sort(), Object.keys(handlers).sort());
  });

  test('every secured operation names its scope, and every error response uses the error body', () => {
    const spec = loadSpec();
    const scopes = new Set((spec.components?.schemas?.Scope as { enum: string[] }).enum);
    for (const { path, method, operation } of operations()) {
      const security = (operation.security as unknown[] | undefined) ?? [];
      // x-gw-no-scope: any authenticated caller (GET /v1/auth/self, sign-out), said explicitly.
      if (security.length && operation['x-gw-no-scope'] !== true) assert.ok(scopes.has(operation['x-gw-scope'] as string), `${method} ${path} declares a known x-gw-scope`);
      // SCIM and OAuth operations answer their protocol's own error bodies (x-gw-error-format).
      if (operation['x-gw-error-format']) continue;
      for (const [status, response] of Object.entries(operation.responses as Record<string, { $ref?: string }>)) {
        // /ready's 503 reports which dependency failed, in the readiness shape.
        const readiness = operation.operationId === 'getReadiness' && status === '503';
        if (!readiness && (status.startsWith('4') || status.startsWith('5') || status === 'default')) {
          assert.match(response.$ref ?? '', /#\/components\/responses\//, `${method} ${path} ${status} uses a shared error response`);
        }
      }
    }
  });

  test('boot fails when an operation has no handler', async () => {
    const app = await startTestApp();
    try {
      const { getHealth: _omitted, ...rest } = handlers;
      await assert.rejects(createApi(loadSpec(), rest, app.services), /no handler for getHealth/);
    } finally {
      await app.close();
    }
  });

  test('boot fails when a handler has no operation', async () => {
    const app = await startTestApp();
    try {
      const extra: Record<string, Handler> = { ...handlers, getNothing: async () => ({}) };
      await assert.rejects(createApi(loadSpec(), extra, app.services), /no operation for getNothing/);
    } finally {
      await app.close();
    }
  });

  test('boot fails on a spec that is not valid OpenAPI', async () => {
    const app = await startTestApp();
    try {
      const broken = loadSpec();
      (broken.paths!['/health'] as Record<string, unknown>).get = { responses: 'none' };
      await assert.rejects(createApi(broken, handlers, app.services), /not valid OpenAPI/);
    } finally {
      await app.close();
    }
  });

  test('a response that does not match the spec is caught (tests run with response validation on)', async () => {
    const app = await startTestApp();
    try {
      const offSpec: Record<string, Handler> = { ...handlers, getHealth: async () => ({ body: { status: 'sleepy' } }) };
      const api = await createApi(loadSpec(), offSpec, app.services);
      const { createDispatcher } = await import('../../server/http.js');
      const dispatch = createDispatcher(api, app.services);
      const { createServer } = await import('node:http');
      const server = createServer((req, res) => void dispatch(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as { port: number }).port;
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        assert.equal(res.status, 500);
        const body = (await res.json()) as { error: { code: string } };
        assert.equal(body.error.code, 'response_validation_failed');
      } finally {
        server.close();
      }
    } finally {
      await app.close();
    }
  });
});
