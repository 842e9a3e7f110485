import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { REGISTRY_CATALOG } from '../../gateway/mcp/registry-catalog.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('the MCP registry', () => {
  let app: TestApp;
  let upstream: FakeMcpServer;
  const admin = () => ({ 'x-gw-api-key': app.adminKey });

  before(async () => {
    upstream = await startFakeMcpServer();
    app = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
  });
  after(async () => {
    await app.close();
    await upstream.close();
  });

  test("a workspace's usable integrations first, then the catalog, paged by cursor", async () => {
    const open = await app.http.post('/v1/mcp-integrations').set(admin()).send({ name: 'Open to all', url: upstream.url, transport: 'http', auth_type: 'none', global_workspace_access: true });
    const closed = await app.http.post('/v1/mcp-integrations').set(admin()).send({ name: 'Not enabled', url: upstream.url, transport: 'http', auth_type: 'none' });
    assert.equal(open.status, 201);
    assert.equal(closed.status, 201);
    const seen: Array<{ id: string; source: string }> = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const response = await app.http.get('/v1/mcp-registry').query({ limit: 3, ...(cursor ? { cursor } : {}) }).set(admin());
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.ok(response.body.data.length <= 3);
      seen.push(...response.body.data);
      if (!response.body.has_more) {
        assert.equal(response.body.next_cursor, null);
        break;
      }
      cursor = response.body.next_cursor;
    }
    assert.equal(seen.length, 1 + REGISTRY_CATALOG.length);
    assert.deepEqual(seen[0], { id: open.body.id, source: 'integration', name: 'Open to all', slug: 'open-to-all', description: null, url: upstream.url, transport: 'http', auth_type: 'none', homepage: null });
    assert.ok(!seen.some((entry) => entry.id === closed.body.id), 'an integration the workspace may not use is not listed');
    assert.deepEqual(seen.slice(1).map((entry) => entry.id), REGISTRY_CATALOG.map((entry) => entry.id));
    const bad = await app.http.get('/v1/mcp-registry').query({ cursor: 'not-a-cursor' }).set(admin());
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'cursor');
  });
});
