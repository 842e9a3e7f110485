/**
 * Workspace and organisation security_settings take effect: key expiry rules on creation, update
 * and rotation; no bodies in the request log where logging.store_request_bodies is off; callers
 * outside network.allowed_ip_ranges refused before any work, X-Forwarded-For believed only from
 * the proxies GW_TRUSTED_PROXIES names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { workspaceKey } from '../logs/log-fixtures.js';

const DAY_MS = 86_400_000;

for (const engine of fullEngines()) {
  describe(`security_settings.api_keys (${engine.name})`, () => {
    let app: TestApp;
    let workspaceId: string;
    const clock = Date.parse('2026-11-23T10:00:00.000Z');
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const serviceKey = (extra: Record<string, unknown> = {}) =>
      app.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'k', workspace_id: workspaceId, scopes: ['completions.write'], ...extra });

    before(async () => {
      app = await startTestApp({ engine, now: () => clock });
      await app.http.put('/v1/admin/organisation/settings').set(admin()).send({ security_settings: { overridable_sections: ['api_keys'] } });
      workspaceId = (await app.http.post('/v1/workspaces').set(admin()).send({ name: 'Strict keys' })).body.id;
      const saved = await app.http
        .put(`/v1/workspaces/${workspaceId}`)
        .set(admin())
        .send({ security_settings: { api_keys: { max_ttl_days: 30 } } });
      assert.equal(saved.status, 200);
    });
    after(() => app.close());

    test('max_ttl_days: a later expiry is refused naming the setting; no expiry becomes the longest allowed', async () => {
      const tooLong = await serviceKey({ expires_at: new Date(clock + 31 * DAY_MS).toISOString() });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.error.code, 'api_key_ttl_too_long');
      assert.equal(tooLong.body.error.param, 'expires_at');
      assert.match(tooLong.body.error.message, /security_settings\.api_keys\.max_ttl_days/);

      const within = await serviceKey({ expires_at: new Date(clock + 10 * DAY_MS).toISOString() });
      assert.equal(within.status, 201);
      assert.equal(within.body.expires_at, new Date(clock + 10 * DAY_MS).toISOString());

      const clamped = await serviceKey();
      assert.equal(clamped.status, 201);
      assert.equal(clamped.body.expires_at, new Date(clock + 30 * DAY_MS).toISOString());

      const neverExpire = await app.http.put(`/v1/api-keys/${clamped.body.id}`).set(admin()).send({ expires_at: null });
      assert.equal(neverExpire.status, 400);
      assert.equal(neverExpire.body.error.code, 'api_key_ttl_too_long');

      // The default workspace keeps the organisation's (empty) settings.
      const elsewhere = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'free', workspace_id: app.boot.workspaceId, scopes: ['completions.write'] });
      assert.equal(elsewhere.status, 201);
      assert.equal(elsewhere.body.expires_at, null);
    });

    test('rotation gives the new secret no more than max_ttl_days', async () => {
      const unrestricted = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'old', workspace_id: app.boot.workspaceId, scopes: ['completions.write'] });
      // A key made before the rule: moved to the strict workspace's rules by editing its row, as an upgrade would find it.
      await app.services.db('api_keys').where({ id: unrestricted.body.id }).update({ workspace_id: workspaceId });
      const rotated = await app.http.post(`/v1/api-keys/${unrestricted.body.id}/rotate`).set(admin()).send({});
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      assert.equal(rotated.body.expires_at, new Date(clock + 30 * DAY_MS).toISOString());
    });

    test('require_expiry: a key without expires_at is refused, and so is rotating one that never expires', async () => {
      const legacy = await serviceKey();
      await app.services.db('api_keys').where({ id: legacy.body.id }).update({ expires_at: null });
      const changed = await app.http
        .put(`/v1/workspaces/${workspaceId}`)
        .set(admin())
        .send({ security_settings: { api_keys: { require_expiry: true } } });
      assert.equal(changed.status, 200);

      const missing = await serviceKey();
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.code, 'api_key_expiry_required');
      assert.match(missing.body.error.message, /security_settings\.api_keys\.require_expiry/);
      assert.equal((await serviceKey({ expires_at: new Date(clock + 400 * DAY_MS).toISOString() })).status, 201, 'no max_ttl_days now');

      const rotate = await app.http.post(`/v1/api-keys/${legacy.body.id}/rotate`).set(admin()).send({});
      assert.equal(rotate.status, 400);
      assert.equal(rotate.body.error.code, 'api_key_expiry_required');
    });
  });

  describe(`security_settings.logging.store_request_bodies (${engine.name})`, () => {
    let gw: GatewayApp;
    before(async () => {
      gw = await startGatewayApp({ engine });
    });
    after(() => gw.close());

    test('off: log rows and exports of that workspace hold no bodies, tokens and cost still count', async () => {
      const admin = { 'x-gw-api-key': gw.app.adminKey };
      await gw.app.http.put('/v1/admin/organisation/settings').set(admin).send({ security_settings: { overridable_sections: ['logging'] } });
      const quiet = (await gw.app.http.post('/v1/workspaces').set(admin).send({ name: 'Quiet' })).body.id as string;
      const saved = await gw.app.http.put(`/v1/workspaces/${quiet}`).set(admin).send({ security_settings: { logging: { store_request_bodies: false } } });
      assert.equal(saved.status, 200);
      const quietKey = await workspaceKey(gw.app, quiet, ['completions.write']);

      const chat = (key: string, trace: string) =>
        gw.app.http
          .post('/v1/chat/completions')
          .set({ 'x-gw-api-key': key, 'x-gw-provider': 'openai', authorization: 'Bearer sk-upstream', 'x-gw-trace-id': trace })
          .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a private question' }] });
      assert.equal((await chat(quietKey, 'quiet-trace')).status, 200);
      assert.equal((await chat(gw.app.adminKey, 'loud-trace')).status, 200);
      await logsSettled(gw, 2);
      await gw.app.services.requestLogs.flush();

      const quietRow = await gw.app.services.db('request_logs').where({ trace_id: 'quiet-trace' }).first();
      assert.equal(quietRow.request_body, null);
      assert.equal(quietRow.response_body, null);
      assert.ok(Number(quietRow.total_tokens) > 0, 'tokens counted');
      assert.ok(Number(quietRow.cost) > 0, 'cost counted');
      const loudRow = await gw.app.services.db('request_logs').where({ trace_id: 'loud-trace' }).first();
      assert.ok(JSON.stringify(loudRow.request_body).includes('a private question'), 'other workspaces keep their bodies');

      // Custom logs written into that workspace lose their bodies too.
      const custom = await gw.app.http
        .post('/v1/logs')
        .set(admin)
        .send({ logs: [{ workspace_id: quiet, request: { q: 'secret' }, response: { a: 'secret' } }] });
      assert.equal(custom.status, 201, JSON.stringify(custom.body));
      const customRow = await gw.app.services.db('request_logs').where({ id: custom.body.data[0].id }).first();
      assert.equal(customRow.request_body, null);
    });
  });

  describe(`security_settings.network.allowed_ip_ranges (${engine.name})`, () => {
    let gw: GatewayApp;
    let key: string;
    const chat = (headers: Record<string, string> = {}) =>
      gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': key, 'x-gw-provider': 'openai', authorization: 'Bearer sk-upstream', ...headers })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });

    before(async () => {
      // The tests reach gw from 127.0.0.1, which is the one trusted proxy here.
      gw = await startGatewayApp({ engine, env: { GW_TRUSTED_PROXIES: '127.0.0.1' } });
      const admin = { 'x-gw-api-key': gw.app.adminKey };
      await gw.app.http.put('/v1/admin/organisation/settings').set(admin).send({ security_settings: { overridable_sections: ['network'] } });
      const fenced = (await gw.app.http.post('/v1/workspaces').set(admin).send({ name: 'Fenced' })).body.id as string;
      key = await workspaceKey(gw.app, fenced, ['completions.write', 'workspaces.list']);
      const bad = await gw.app.http.put(`/v1/workspaces/${fenced}`).set(admin).send({ security_settings: { network: { allowed_ip_ranges: ['10.0.0.0/33'] } } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'invalid_ip_range');
      assert.equal(bad.body.error.param, 'security_settings.network.allowed_ip_ranges[0]');
      const saved = await gw.app.http
        .put(`/v1/workspaces/${fenced}`)
        .set(admin)
        .send({ security_settings: { network: { allowed_ip_ranges: ['10.0.0.0/8', '2001:db8::/32'] } } });
      assert.equal(saved.status, 200);
    });
    after(() => gw.close());

    test('a caller outside the ranges gets 403 before any upstream call, in the door\'s error shape', async () => {
      const upstreamBefore = gw.fake.requests.length;
      const refused = await chat();
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'ip_address_not_allowed');
      assert.equal(refused.body.error.type, 'permission_error');
      assert.match(refused.body.error.message, /127\.0\.0\.1.*security_settings\.network\.allowed_ip_ranges/);
      assert.equal(gw.fake.requests.length, upstreamBefore, 'no upstream call');

      const anthropic = await gw.app.http
        .post('/v1/messages')
        .set({ 'x-api-key': key, 'anthropic-version': '2023-06-01' })
        .send({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(anthropic.status, 403);
      assert.equal(anthropic.body.type, 'error');
      assert.equal(anthropic.body.error.type, 'permission_error');

      const admin = await gw.app.http.get('/v1/workspaces').set({ 'x-gw-api-key': key });
      assert.equal(admin.status, 403, 'the Admin API is fenced too');
      assert.equal(admin.body.error.code, 'ip_address_not_allowed');
      assert.equal((await gw.app.http.get('/v1/workspaces').set({ 'x-gw-api-key': gw.app.adminKey })).status, 200, 'other workspaces are not');
    });

    test('behind a trusted proxy the X-Forwarded-For client decides; a forged leftmost entry does not', async () => {
      const inside = await chat({ 'x-forwarded-for': '10.1.2.3' });
      assert.equal(inside.status, 200, JSON.stringify(inside.body));
      const insideV6 = await chat({ 'x-forwarded-for': '2001:db8::7' });
      assert.equal(insideV6.status, 200);
      // The client wrote 10.9.9.9 itself; the proxy appended the address it saw (203.0.113.5).
      const forged = await chat({ 'x-forwarded-for': '10.9.9.9, 203.0.113.5' });
      assert.equal(forged.status, 403);
      assert.match(forged.body.error.message, /203\.0\.113\.5/);
    });
  });

  describe(`X-Forwarded-For from an untrusted peer (${engine.name})`, () => {
    test('is ignored: the socket address decides', async () => {
      const gw = await startGatewayApp({ engine });
      try {
        const admin = { 'x-gw-api-key': gw.app.adminKey };
        await gw.app.http.put('/v1/admin/organisation/settings').set(admin).send({ security_settings: { overridable_sections: ['network'] } });
        const fenced = (await gw.app.http.post('/v1/workspaces').set(admin).send({ name: 'Fenced' })).body.id as string;
        await gw.app.http.put(`/v1/workspaces/${fenced}`).set(admin).send({ security_settings: { network: { allowed_ip_ranges: ['10.0.0.0/8'] } } });
        const key = await workspaceKey(gw.app, fenced, ['workspaces.list']);
        const spoofed = await gw.app.http.get('/v1/workspaces').set({ 'x-gw-api-key': key, 'x-forwarded-for': '10.1.2.3' });
        assert.equal(spoofed.status, 403);
        assert.equal(spoofed.body.error.code, 'ip_address_not_allowed');
        // Loopback allowed: the same key works.
        const opened = await gw.app.http.put(`/v1/workspaces/${fenced}`).set(admin).send({ security_settings: { network: { allowed_ip_ranges: ['127.0.0.0/8', '::1'] } } });
        assert.equal(opened.status, 200, JSON.stringify(opened.body));
        const allowed = await gw.app.http.get('/v1/workspaces').set({ 'x-gw-api-key': key });
        assert.equal(allowed.status, 200, JSON.stringify(allowed.body));

        // Ranges that would refuse the caller's own next request are refused when saved.
        const lockout = await gw.app.http.put('/v1/admin/organisation/settings').set(admin).send({ security_settings: { network: { allowed_ip_ranges: ['10.0.0.0/8'] } } });
        assert.equal(lockout.status, 400);
        assert.equal(lockout.body.error.code, 'ip_ranges_exclude_caller');
        assert.equal((await gw.app.http.get('/v1/workspaces').set(admin)).status, 200, 'the admin is not locked out');
      } finally {
        await gw.close();
      }
    });
  });
}
