import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { REDACTED, redactFields } from '../../core/redaction.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('audit redaction', () => {
  test('secret-looking fields are redacted at any depth; other fields are kept', () => {
    const out = redactFields({
      name: 'n',
      key: 'k',
      api_key: 'a',
      oauth_client_secret: 's',
      nested: [{ password: 'p', token: 't', aws_secret_access_key: 'x', access_token: 'y', region: 'eu' }],
    });
    assert.deepEqual(out, {
      name: 'n',
      key: REDACTED,
      api_key: REDACTED,
      oauth_client_secret: REDACTED,
      nested: [{ password: REDACTED, token: REDACTED, aws_secret_access_key: REDACTED, access_token: REDACTED, region: 'eu' }],
    });
  });
});

for (const engine of fullEngines()) {
  describe(`audit logs (${engine.name})`, () => {
    let app: TestApp;
    let clock = Date.parse('2026-11-23T10:00:00.000Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    let adminKeyId: string;

    before(async () => {
      app = await startTestApp({ engine, now: () => clock });
      adminKeyId = (await app.services.db('api_keys').first()).id;
    });
    after(() => app.close());

    test('every administrative write is recorded with actor, action, target, time, ip, status and a redacted body', async () => {
      const created = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Audited' });
      clock += 1000;
      const key = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'k', workspace_id: created.body.id, scopes: ['completions.write'] });
      clock += 1000;
      await app.http.delete(`/v1/api-keys/${key.body.id}`).set(admin());
      clock += 1000;
      // Reads are not audited.
      await app.http.get('/v1/workspaces').set(admin());

      const res = await app.http.get('/v1/audit-logs').set(admin());
      assert.equal(res.status, 200);
      const [revoke, createKey, createWorkspace] = res.body.data;
      assert.equal(revoke.action, 'deleteApiKey');
      assert.equal(revoke.resource_type, 'api_keys');
      assert.equal(revoke.resource_id, key.body.id);
      assert.equal(revoke.method, 'DELETE');
      assert.equal(revoke.status, 200);
      assert.equal(createKey.action, 'createWorkspaceServiceApiKey');
      assert.equal(createKey.resource_id, key.body.id);
      assert.equal(createKey.workspace_id, created.body.id);
      assert.equal(createKey.status, 201);
      assert.deepEqual(createKey.request.scopes, ['completions.write']);
      assert.ok(!JSON.stringify(res.body).includes(key.body.key), 'the new secret never reaches the audit log');
      assert.equal(createWorkspace.action, 'createWorkspace');
      assert.equal(createWorkspace.resource_type, 'workspaces');
      assert.equal(createWorkspace.resource_id, created.body.id);
      assert.equal(createWorkspace.workspace_id, created.body.id);
      assert.deepEqual(createWorkspace.actor, { user_id: (await app.services.db('users').first()).id, api_key_id: adminKeyId, credential: 'api_key', subject: null });
      assert.equal(createWorkspace.ip_address, '127.0.0.1');
      assert.equal(createWorkspace.created_at, '2026-11-23T10:00:00.000Z');
      assert.ok(createWorkspace.trace_id);
      assert.ok(res.body.data.every((e: { method: string }) => e.method !== 'GET'));
    });

    test('failed and refused writes are recorded with their status; secrets in bodies are redacted', async () => {
      clock += 1000;
      const limited = await app.http.post('/v1/api-keys/organisation/service').set(admin()).send({ name: 'limited', scopes: ['workspaces.read'] });
      clock += 1000;
      const denied = await app.http.post('/v1/workspaces').set({ 'x-gw-api-key': limited.body.key }).send({ name: 'nope' });
      assert.equal(denied.status, 403);
      clock += 1000;
      const conflict = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Default', slug: 'default' });
      assert.equal(conflict.status, 409);

      const refusals = await app.http.get(`/v1/audit-logs?action=createWorkspace&start_time=${new Date(clock - 2500).toISOString()}`).set(admin());
      assert.deepEqual(
        refusals.body.data.map((e: { status: number; actor: { api_key_id: string } }) => [e.status, e.actor.api_key_id]),
        [
          [409, adminKeyId],
          [403, limited.body.id],
        ],
      );

      clock += 1000;
      await app.http.post('/v1/admin/users/invites').set(admin()).send({ email: 'x@example.com', role: 'member' });
      clock += 1000;
      await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ export_settings: { deniedFields: ['x'] } });
      const rotated = await app.http.post(`/v1/api-keys/${limited.body.id}/rotate`).set(admin()).send({});
      const entries = await app.http.get('/v1/audit-logs?limit=100').set(admin());
      assert.ok(!JSON.stringify(entries.body).includes(rotated.body.key));

      // A secret in a request body is kept out of the stored request details; the other fields stay.
      clock += 1000;
      const provider = await app.http.post('/v1/providers').set(admin()).send({ name: 'Audited provider', ai_provider_id: 'openai', key: 'sk-audit-secret-000000' });
      assert.equal(provider.status, 201);
      const [entry] = (await app.http.get('/v1/audit-logs?action=createProvider').set(admin())).body.data;
      assert.deepEqual(entry.request, { name: 'Audited provider', ai_provider_id: 'openai', key: REDACTED });
      assert.equal(entry.ip_address, '127.0.0.1');
      assert.ok(!(await app.services.db('audit_logs').select()).some((row) => JSON.stringify(row).includes('sk-audit-secret')));
    });

    test('filters: time range, action, actor, resource, workspace; cursor pagination', async () => {
      const ws = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Filtered' });
      const key = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'f', workspace_id: ws.body.id, scopes: ['completions.write'] });
      const byResource = await app.http.get(`/v1/audit-logs?resource_type=api_keys&resource_id=${key.body.id}`).set(admin());
      assert.deepEqual(byResource.body.data.map((e: { action: string }) => e.action), ['createWorkspaceServiceApiKey']);
      const byWorkspace = await app.http.get(`/v1/audit-logs?workspace_id=${ws.body.id}`).set(admin());
      assert.deepEqual(byWorkspace.body.data.map((e: { action: string }) => e.action).sort(), ['createWorkspace', 'createWorkspaceServiceApiKey']);
      const byActor = await app.http.get(`/v1/audit-logs?actor_id=${adminKeyId}&limit=100`).set(admin());
      assert.ok(byActor.body.data.length >= 5);
      const future = await app.http.get('/v1/audit-logs?start_time=2030-01-01T00:00:00Z').set(admin());
      assert.deepEqual(future.body.data, []);
      const past = await app.http.get('/v1/audit-logs?end_time=2026-11-23T10:00:00Z').set(admin());
      assert.deepEqual(past.body.data, []);

      const seen = new Set<string>();
      let cursor: string | null = null;
      do {
        const page: { body: { data: Array<{ id: string }>; next_cursor: string | null } } = await app.http
          .get(`/v1/audit-logs?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
          .set(admin());
        for (const entry of page.body.data) seen.add(entry.id);
        cursor = page.body.next_cursor;
      } while (cursor);
      const total = await app.services.db('audit_logs').count({ n: '*' }).first();
      assert.equal(seen.size, Number(total!.n));
      assert.equal((await app.http.get('/v1/audit-logs?start_time=yesterday').set(admin())).status, 400);
    });

    test('only admin keys with audit_logs.list read the audit log', async () => {
      const ws = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'w', workspace_id: 'default', scopes: ['audit_logs.list'] });
      assert.equal((await app.http.get('/v1/audit-logs').set({ 'x-gw-api-key': ws.body.key })).status, 403);
      const org = await app.http.post('/v1/api-keys/organisation/service').set(admin()).send({ name: 'o', scopes: ['workspaces.read'] });
      assert.equal((await app.http.get('/v1/audit-logs').set({ 'x-gw-api-key': org.body.key })).status, 403);
    });
  });
}
