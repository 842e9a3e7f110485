import assert from 'node:assert/strict';
import { test } from 'node:test';
import { handlers } from '../../handlers/index.js';
import { createApi } from '../../server/api.js';
import { loadSpec } from '../../server/app.js';
import { startTestApp } from '../helpers/test-app.js';

test('boot fails when an operation names a key kind that does not exist', async () => {
  const app = await startTestApp();
  try {
    const spec = loadSpec();
    const post = (spec.paths!['/v1/workspaces'] as Record<string, Record<string, unknown>>).post!;
    post['x-gw-key-kinds'] = ['organisaton'];
    await assert.rejects(createApi(spec, handlers, app.services), /createWorkspace names unknown key kind organisaton/);
  } finally {
    await app.close();
  }
});

test('boot fails when a secured operation declares no scope, or a scope the spec does not define', async () => {
  const app = await startTestApp();
  try {
    const unscoped = loadSpec();
    delete (unscoped.paths!['/v1/workspaces'] as Record<string, Record<string, unknown>>).post!['x-gw-scope'];
    await assert.rejects(createApi(unscoped, handlers, app.services), /createWorkspace is secured but declares no x-gw-scope/);

    const misspelt = loadSpec();
    (misspelt.paths!['/v1/workspaces'] as Record<string, Record<string, unknown>>).post!['x-gw-scope'] = 'workspaces.craete';
    await assert.rejects(createApi(misspelt, handlers, app.services), /createWorkspace declares x-gw-scope workspaces.craete, which is not in the spec's Scope list/);
  } finally {
    await app.close();
  }
});
