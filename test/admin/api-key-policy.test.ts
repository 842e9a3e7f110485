import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeUser } from './people.js';

/** The organisation's user_api_key_rotation_period and the role ceiling on key updates. */
for (const engine of fullEngines()) {
  describe(`API key policy (${engine.name})`, () => {
    let app: TestApp;
    let userId: string;
    const clock = Date.parse('2026-11-23T10:00:00.000Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const userKey = (extra: Record<string, unknown> = {}) =>
      app.http
        .post('/v1/api-keys/workspace/user')
        .set(admin())
        .send({ name: 'u', workspace_id: app.boot.workspaceId, user_id: userId, scopes: ['completions.write'], ...extra });

    before(async () => {
      app = await startTestApp({ engine, now: () => clock });
      userId = (await makeUser(app, 'member', { id: app.boot.workspaceId, role: 'member' })).id;
    });
    after(() => app.close());

    test('without an organisation cadence a user key keeps its own policy or none', async () => {
      const none = await userKey();
      assert.equal(none.status, 201);
      assert.equal(none.body.next_rotation_at, null);
      const own = await userKey({ rotation_period_days: 10 });
      assert.equal(own.body.next_rotation_at, new Date(clock + 10 * 86_400_000).toISOString());
    });

    test('an enforced cadence is applied to user keys and a differing policy is refused', async () => {
      await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ user_api_key_rotation_period: 'weekly' });

      const applied = await userKey();
      assert.equal(applied.status, 201);
      assert.equal(applied.body.rotation_period_days, 7);
      assert.equal(applied.body.next_rotation_at, new Date(clock + 7 * 86_400_000).toISOString());

      const same = await userKey({ rotation_period: 'weekly' });
      assert.equal(same.status, 201);
      const sameDays = await userKey({ rotation_period_days: 7 });
      assert.equal(sameDays.status, 201);

      const differs = await userKey({ rotation_period: 'monthly' });
      assert.equal(differs.status, 400);
      assert.equal(differs.body.error.code, 'rotation_policy_mismatch');
      const differsDays = await userKey({ rotation_period_days: 8 });
      assert.equal(differsDays.status, 400);
      const both = await userKey({ rotation_period: 'weekly', rotation_period_days: 7 });
      assert.equal(both.status, 400);
      assert.equal(both.body.error.code, 'conflicting_rotation_policy');

      const update = await app.http.put(`/v1/api-keys/${applied.body.id}`).set(admin()).send({ rotation_period_days: 30 });
      assert.equal(update.status, 400);
      assert.equal(update.body.error.code, 'rotation_policy_mismatch');

      // Service keys are not user keys: the cadence does not bind them.
      const service = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 's', workspace_id: 'default', scopes: ['completions.write'], rotation_period: 'monthly' });
      assert.equal(service.status, 201);

      await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ user_api_key_rotation_period: null });
    });

    test("raising a user key's scopes above its user's workspace role is refused", async () => {
      const key = await userKey();
      const raise = await app.http.put(`/v1/api-keys/${key.body.id}`).set(admin()).send({ scopes: ['completions.write', 'configs.create'] });
      assert.equal(raise.status, 403);
      assert.equal(raise.body.error.code, 'scope_above_role');
      const within = await app.http.put(`/v1/api-keys/${key.body.id}`).set(admin()).send({ scopes: ['completions.write', 'configs.read'] });
      assert.equal(within.status, 200);
    });
  });
}
