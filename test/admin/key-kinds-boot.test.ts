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
