/** The policies Admin API: usage-limits and rate-limits create, list, get, update (v2 and control form), delete. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const NOW = Date.parse('2026-05-20T15:30:00Z');

for (const engine of storeEngines()) {
  describe(`policies API (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    before(async () => {
      app = await startTestApp({ engine, now: () => NOW });
    });
    after(() => app?.close());

    async function serviceKey(name: string, workspaceId = app.boot.workspaceId): Promise<{ id: string; key: string }> {
      const created = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name, workspace_id: workspaceId, scopes: ['completions.write'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    }

    test('references in conditions are resolved to the ids the gateway compares, or refused naming the field', async () => {
      const workspace = (await app.services.store.workspaces.get(app.boot.organisationId, app.boot.workspaceId))!;
      const other = await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Other team', slug: 'other-team' });
      assert.equal(other.status, 201, JSON.stringify(other.body));
      const key = await serviceKey('referenced');

      // A workspace named by its slug is stored (and answered) as its id; so is an excluded one.
      for (const kind of ['rate-limits', 'usage-limits']) {
        const limit = kind === 'rate-limits' ? { type: 'requests', unit: 'minute', value: 5 } : { type: 'requests', credit_limit: 5 };
        const created = await app.http
          .post(`/v2/policies/${kind}`)
          .set(admin())
          .send({ name: `by slug ${kind}`, ...limit, conditions: [{ key: 'workspace_id', value: workspace.slug }, { key: 'workspace_id', value: '*', excludes: 'other-team' }, { key: 'api_key', value: key.id }] });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const expected = [{ key: 'workspace_id', value: workspace.id }, { key: 'workspace_id', value: '*', excludes: other.body.id }, { key: 'api_key', value: key.id }];
        assert.deepEqual(created.body.conditions, expected);
        assert.deepEqual((await app.http.get(`/v2/policies/${kind}/${created.body.id}`).set(admin())).body.conditions, expected);
        const updated = await app.http.put(`/v2/policies/${kind}/${created.body.id}`).set(admin()).send({ conditions: [{ key: 'workspace_id', value: 'other-team' }] });
        assert.equal(updated.status, 200, JSON.stringify(updated.body));
        assert.deepEqual(updated.body.conditions, [{ key: 'workspace_id', value: other.body.id }]);

        for (const [conditions, param] of [
          [[{ key: 'workspace_id', value: 'no-such-workspace' }], 'conditions[0].value'],
          [[{ key: 'metadata.team', value: 'ml' }, { key: 'api_key', value: 'gw-not-a-key-id' }], 'conditions[1].value'],
          [[{ key: 'api_key', value: '*', excludes: '00000000-0000-4000-8000-000000000000' }], 'conditions[0].excludes'],
        ] as const) {
          const refused = await app.http.post(`/v2/policies/${kind}`).set(admin()).send({ name: 'refused', ...limit, conditions });
          assert.equal(refused.status, 400, JSON.stringify(refused.body));
          assert.deepEqual([refused.body.error.code, refused.body.error.param, refused.body.error.type], ['condition_reference_not_found', param, 'invalid_request_error']);
          const refusedUpdate = await app.http.put(`/v2/policies/${kind}/${created.body.id}`).set(admin()).send({ conditions });
          assert.equal(refusedUpdate.status, 400, JSON.stringify(refusedUpdate.body));
        }
        // A policy of one workspace conditioned on another workspace could never match.
        const never = await app.http.post(`/v2/policies/${kind}`).set(admin()).send({ name: 'never', ...limit, workspace_id: workspace.slug, conditions: [{ key: 'workspace_id', value: 'other-team' }] });
        assert.deepEqual([never.status, never.body.error.code, never.body.error.param], [400, 'condition_never_matches', 'conditions[0].value']);
        assert.equal((await app.http.delete(`/v2/policies/${kind}/${created.body.id}`).set(admin())).status, 200);
      }
    });

    test('a usage-limits policy round-trips, with reset dates at UTC midnight', async () => {
      const created = await app.http
        .post('/v2/policies/usage-limits')
        .set(admin())
        .send({ name: 'team budget', type: 'cost', credit_limit: 12.5, alert_threshold: 10, periodic_reset_days: 7, conditions: [{ key: 'metadata.team', value: 'ml' }], group_by: [{ key: 'api_key' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.object, 'usage_limits_policy');
      assert.equal(created.body.next_usage_reset_at, '2026-05-27T00:00:00.000Z');
      assert.equal(created.body.last_reset_at, null);
      assert.equal(created.body.workspace_id, null);
      const id = created.body.id as string;

      const got = await app.http.get(`/v2/policies/usage-limits/${id}`).set(admin());
      assert.deepEqual(got.body, created.body);
      const list = await app.http.get('/v2/policies/usage-limits').set(admin());
      assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), [id]);

      const updated = await app.http.put(`/v2/policies/usage-limits/${id}`).set(admin()).send({ credit_limit: 20, conditions: [{ key: 'workspace_id', value: app.boot.workspaceId }] });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.credit_limit, 20);
      assert.deepEqual(updated.body.conditions, [{ key: 'workspace_id', value: app.boot.workspaceId }]);

      const deleted = await app.http.delete(`/v2/policies/usage-limits/${id}`).set(admin());
      assert.deepEqual(deleted.body, { id, object: 'usage_limits_policy', deleted: true });
      assert.equal((await app.http.get(`/v2/policies/usage-limits/${id}`).set(admin())).status, 404);
    });

    test('periodic_reset and periodic_reset_days together are refused, on create and on update', async () => {
      const both = await app.http.post('/v2/policies/usage-limits').set(admin()).send({ name: 'x', type: 'requests', credit_limit: 5, periodic_reset: 'monthly', periodic_reset_days: 3 });
      assert.equal(both.status, 400);
      assert.equal(both.body.error.param, 'periodic_reset_days');
      assert.equal(both.body.error.code, 'conflicting_reset_rules');
      const monthly = await app.http.post('/v2/policies/usage-limits').set(admin()).send({ name: 'x', type: 'requests', credit_limit: 5, periodic_reset: 'monthly' });
      assert.equal(monthly.body.next_usage_reset_at, '2026-06-01T00:00:00.000Z');
      const update = await app.http.put(`/v2/policies/usage-limits/${monthly.body.id}`).set(admin()).send({ periodic_reset_days: 30 });
      assert.equal(update.status, 400);
      assert.equal(update.body.error.param, 'periodic_reset_days');
    });

    test('other bad input names the field', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'x', type: 'requests', credit_limit: 2.5 }, 'credit_limit'],
        [{ name: 'x', type: 'cost', credit_limit: 5, alert_threshold: 6 }, 'alert_threshold'],
        [{ name: 'x', type: 'cost', credit_limit: 5, periodic_reset_days: 366 }, 'periodic_reset_days'],
        [{ name: 'x', type: 'cost', credit_limit: 5, periodic_reset_days: 0 }, 'periodic_reset_days'],
        [{ name: 'x', type: 'dollars', credit_limit: 5 }, 'type'],
        [{ name: 'x', type: 'cost', credit_limit: 5, conditions: [{ key: 'colour', value: 'red' }] }, 'conditions[0].key'],
      ];
      for (const [body, param] of cases) {
        const res = await app.http.post('/v2/policies/usage-limits').set(admin()).send(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.param, param, JSON.stringify(res.body));
      }
    });

    test('a rate-limits policy round-trips; target defaults to llm', async () => {
      const created = await app.http
        .post('/v2/policies/rate-limits')
        .set(admin())
        .send({ name: 'rpm', type: 'requests', unit: 'minute', value: 60, conditions: [{ key: 'api_key', value: '*', excludes: (await serviceKey('excluded')).id }], group_by: [{ key: 'api_key' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.target, 'llm');
      const id = created.body.id as string;
      const updated = await app.http.put(`/v2/policies/rate-limits/${id}`).set(admin()).send({ name: 'rpm2', value: 30, conditions: [{ key: 'metadata.env', value: 'prod' }] });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.value, 30);
      assert.deepEqual(updated.body.conditions, [{ key: 'metadata.env', value: 'prod' }]);
      assert.equal((await app.http.get('/v2/policies/rate-limits').set(admin())).body.data.length, 1);
      assert.equal((await app.http.delete(`/v2/policies/rate-limits/${id}`).set(admin())).status, 200);
      assert.equal((await app.http.get(`/v2/policies/rate-limits/${id}`).set(admin())).status, 404);
    });

    test('the control-plane update answers an empty object and the change is stored', async () => {
      const created = await app.http.post('/v2/policies/rate-limits').set(admin()).send({ name: 'tpm', type: 'tokens', unit: 'hour', value: 1000, target: 'mcp_tools' });
      const [abc, def] = [(await serviceKey('abc')).id, (await serviceKey('def')).id];
      const res = await app.http.put(`/v1/policies/rate-limits/${created.body.id}`).set(admin()).send({ name: 'tpm', value: 500, conditions: [{ key: 'api_key', value: abc, excludes: def }] });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
      const got = await app.http.get(`/v2/policies/rate-limits/${created.body.id}`).set(admin());
      assert.equal(got.body.value, 500);
      assert.equal(got.body.target, 'mcp_tools');
      assert.deepEqual(got.body.conditions, [{ key: 'api_key', value: abc, excludes: def }]);
    });

    test('a condition with an empty excludes is accepted on every route that takes conditions, and kept as sent', async () => {
      const conditions = [{ key: 'api_key', value: '*', excludes: '' }];
      const rate = await app.http.post('/v2/policies/rate-limits').set(admin()).send({ name: 'empty-excludes', type: 'requests', unit: 'day', value: 5, conditions });
      assert.equal(rate.status, 201, JSON.stringify(rate.body));
      assert.deepEqual(rate.body.conditions, conditions);
      const update = await app.http.put(`/v1/policies/rate-limits/${rate.body.id}`).set(admin()).send({ name: 'empty-excludes', value: 6, conditions });
      assert.equal(update.status, 200, JSON.stringify(update.body));
      const v2Update = await app.http.put(`/v2/policies/rate-limits/${rate.body.id}`).set(admin()).send({ conditions });
      assert.equal(v2Update.status, 200, JSON.stringify(v2Update.body));
      const usage = await app.http.post('/v2/policies/usage-limits').set(admin()).send({ name: 'empty-excludes', type: 'requests', credit_limit: 5, conditions });
      assert.equal(usage.status, 201, JSON.stringify(usage.body));
      assert.deepEqual(usage.body.conditions, conditions);
    });

    test('a workspace key sees and makes only its own workspace policies', async () => {
      const key = await app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'ws', workspace_id: app.boot.workspaceId, scopes: ['policies.create', 'policies.read', 'policies.list'] });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const orgWide = await app.http.post('/v2/policies/rate-limits').set(admin()).send({ name: 'org', type: 'requests', unit: 'day', value: 5 });
      const own = await app.http.post('/v2/policies/rate-limits').set({ 'x-gw-api-key': key.body.key }).send({ name: 'own', type: 'requests', unit: 'day', value: 5 });
      assert.equal(own.body.workspace_id, app.boot.workspaceId);
      assert.equal((await app.http.get(`/v2/policies/rate-limits/${orgWide.body.id}`).set({ 'x-gw-api-key': key.body.key })).status, 404);
      const listed = await app.http.get('/v2/policies/rate-limits').set({ 'x-gw-api-key': key.body.key });
      assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [own.body.id]);
    });
  });
}
