/**
 * /v1/deployments: a self-hosted gateway's record and its deployment key (shown once, stored
 * hashed, good for nothing but heartbeats), heartbeats that register the version and address,
 * status from the last heartbeat, and the version gates shown on the deployment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { GW_VERSION } from '../../core/version.js';

for (const engine of fullEngines()) {
  describe(`deployments (${engine.name})`, () => {
    let app: TestApp;
    let clock = Date.parse('2026-11-24T06:00:00Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      app = await startTestApp({ engine, now: () => clock });
    });
    after(() => app.close());

    test('create answers the deployment key once; it is stored hashed and only heartbeats with it', async () => {
      const created = await app.http.post('/v1/deployments').set(admin()).send({
        name: 'EU cluster',
        tags: { region: 'eu-west-1', team: 'platform' },
        source_type: 'kubernetes',
        mcp_gateway_base_url: 'https://mcp.gw.example.eu',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const key: string = created.body.deployment_key;
      assert.ok(key.length > 20);
      assert.equal(created.body.status, 'pending');
      assert.deepEqual(created.body.tags, { region: 'eu-west-1', team: 'platform' });
      assert.equal(created.body.version, null);
      const raw = JSON.stringify(await app.services.db('api_keys').select());
      assert.ok(!raw.includes(key), 'the key is stored hashed');
      const fetched = await app.http.get('/v1/deployments/eu-cluster').set(admin());
      assert.equal(fetched.body.deployment_key, undefined);
      assert.equal(fetched.body.masked_key, created.body.masked_key);

      const dp = { 'x-gw-api-key': key };
      assert.equal((await app.http.get('/v1/integrations').set(dp)).status, 403, 'a deployment key carries no admin scope');
      const adminBeat = await app.http.post('/v1/deployments/heartbeat').set(admin()).send({ version: 'v2.19.0' });
      assert.equal(adminBeat.status, 403);
      assert.equal(adminBeat.body.error.code, 'not_a_deployment_key');

      const beat = await app.http.post('/v1/deployments/heartbeat').set(dp).send({ version: 'v2.19.0', gateway_base_url: 'https://gw.example.eu' });
      assert.equal(beat.status, 200, JSON.stringify(beat.body));
      assert.equal(beat.body.deployment_id, created.body.id);
      assert.deepEqual(beat.body.unsupported_policies, []);
      const active = await app.http.get(`/v1/deployments/${created.body.id}`).set(admin());
      assert.equal(active.body.status, 'active');
      assert.equal(active.body.version, '2.19.0');
      assert.equal(active.body.gateway_base_url, 'https://gw.example.eu');
      assert.equal(active.body.last_heartbeat_at, new Date(clock).toISOString());

      clock += 60_000;
      assert.equal((await app.http.get(`/v1/deployments/${created.body.id}`).set(admin())).body.status, 'unreachable');

      const updated = await app.http.put(`/v1/deployments/${created.body.id}`).set(admin()).send({ tags: { region: 'eu-central-1' } });
      assert.deepEqual(updated.body.tags, { region: 'eu-central-1' });
      assert.equal((await app.http.get('/v1/deployments').set(admin())).body.data.length, 1);

      assert.equal((await app.http.delete(`/v1/deployments/${created.body.id}`).set(admin())).status, 200);
      assert.equal((await app.http.post('/v1/deployments/heartbeat').set(dp).send({ version: 'v2.19.0' })).status, 401, 'the key is revoked with the deployment');
    });

    test('version gates: an older release shows the policies in force it cannot enforce', async () => {
      const created = await app.http.post('/v1/deployments').set(admin()).send({ name: 'old one' });
      const dp = { 'x-gw-api-key': created.body.deployment_key };
      assert.equal((await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ block_inline_config: true })).status, 200);
      const policy = await app.http.post('/v2/policies/rate-limits').set(admin()).send({ name: 'tool calls', type: 'requests', unit: 'minute', value: 10, target: 'mcp_tools' });
      assert.equal(policy.status, 201, JSON.stringify(policy.body));

      const old = await app.http.post('/v1/deployments/heartbeat').set(dp).send({ version: '2.10.4' });
      assert.deepEqual(
        old.body.unsupported_policies.map((p: { policy: string; required_version: string }) => [p.policy, p.required_version]),
        [
          ['block_inline_config', '2.11.0'],
          [`rate_limits:${policy.body.id}`, '2.18.0'],
        ],
      );
      const shown = await app.http.get(`/v1/deployments/${created.body.id}`).set(admin());
      assert.equal(shown.body.unsupported_policies.length, 2);
      assert.match(shown.body.unsupported_policies[0].message, /does not enforce it/);

      const middle = await app.http.post('/v1/deployments/heartbeat').set(dp).send({ version: 'v2.11.0' });
      assert.deepEqual(middle.body.unsupported_policies.map((p: { required_version: string }) => p.required_version), ['2.18.0']);
      const current = await app.http.post('/v1/deployments/heartbeat').set(dp).send({ version: 'v2.18.0' });
      assert.deepEqual(current.body.unsupported_policies, []);
    });

    test('a gw started with GW_CONTROL_PLANE_URL and its deployment key registers itself by heartbeat', async () => {
      const created = await app.http.post('/v1/deployments').set(admin()).send({ name: 'self registering' });
      const selfHosted = await startTestApp({
        env: { GW_CONTROL_PLANE_URL: app.url, GW_DEPLOYMENT_KEY: created.body.deployment_key, GW_PUBLIC_URL: 'https://gw.self-hosted.example', GW_JOBS_POLL_MS: '50' },
      });
      try {
        let seen: { version: string | null; gateway_base_url: string | null } = { version: null, gateway_base_url: null };
        for (let i = 0; i < 400 && seen.version === null; i++) {
          seen = (await app.http.get(`/v1/deployments/${created.body.id}`).set(admin())).body;
          if (seen.version === null) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        assert.equal(seen.version, GW_VERSION);
        assert.equal(seen.gateway_base_url, 'https://gw.self-hosted.example');
      } finally {
        await selfHosted.close();
      }
    });
  });
}
