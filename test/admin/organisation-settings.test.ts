import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ORGANISATION_SETTINGS_TOPIC } from '../../gateway/saved-resources.js';
import { effectiveSettings, type Organisation } from '../../store/repositories/organisations.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PATH = '/v1/admin/organisation/settings';

describe('block_inline_config default', () => {
  const organisation = (createdAt: string, settings: Record<string, unknown> = {}): Organisation => ({
    id: 'o',
    name: 'o',
    slug: 'o',
    settings,
    created_at: createdAt,
    updated_at: createdAt,
  });

  test('on for organisations created on or after 2026-06-19, off before, unless set; BLOCK_INLINE_CONFIG forces it', () => {
    assert.equal(effectiveSettings(organisation('2026-06-18T23:59:59.999Z'), false).block_inline_config, false);
    assert.equal(effectiveSettings(organisation('2026-06-19T00:00:00.000Z'), false).block_inline_config, true);
    assert.equal(effectiveSettings(organisation('2026-07-01T00:00:00.000Z', { block_inline_config: false }), false).block_inline_config, false);
    assert.equal(effectiveSettings(organisation('2026-07-01T00:00:00.000Z', { block_inline_config: false }), true).block_inline_config, true);
  });
});

for (const engine of fullEngines()) {
  describe(`organisation settings (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      app = await startTestApp({ engine });
    });
    after(() => app.close());

    test('the bootstrap organisation allows inline providers so a first `make run` + curl works', async () => {
      const res = await app.http.get(PATH).set(admin());
      assert.equal(res.status, 200);
      assert.equal(res.body.block_inline_config, false);
      assert.equal(res.body.block_inline_config_forced, false);
      assert.deepEqual(res.body.export_settings, { deniedFields: [] });
      assert.equal(res.body.user_api_key_rotation_period, null);
    });

    test('PUT stores every named setting, normalises the rotation period and tells the gateway', async () => {
      const heard: string[] = [];
      app.services.bus.subscribe(ORGANISATION_SETTINGS_TOPIC, (id) => heard.push(id));
      const res = await app.http
        .put(PATH)
        .set(admin())
        .send({
          user_api_key_auto_create: true,
          default_workspace_user_api_key_auto_create: true,
          user_api_key_auto_create_scopes: ['completions.write'],
          block_inline_config: true,
          export_settings: { deniedFields: ['request.messages'] },
          disable_auto_provision_user: true,
          email_domains: [{ domain: 'example.com', allow_subdomains: true }, { domain: 'example.org' }],
          user_api_key_rotation_period: 'weekly',
        });
      assert.equal(res.status, 200);
      assert.equal(res.body.user_api_key_auto_create, true);
      assert.equal(res.body.default_workspace_user_api_key_auto_create, true);
      assert.deepEqual(res.body.user_api_key_auto_create_scopes, ['completions.write']);
      assert.equal(res.body.block_inline_config, true);
      assert.deepEqual(res.body.export_settings.deniedFields, ['request.messages']);
      assert.equal(res.body.disable_auto_provision_user, true);
      assert.deepEqual(res.body.email_domains, [
        { domain: 'example.com', allow_subdomains: true },
        { domain: 'example.org', allow_subdomains: false },
      ]);
      assert.equal(res.body.user_api_key_rotation_period, 7);
      // With Redis the publisher also hears its own message back; once or twice, it names the organisation.
      assert.deepEqual([...new Set(heard)], [app.boot.organisationId]);

      const monthly = await app.http.put(PATH).set(admin()).send({ user_api_key_rotation_period: 'monthly' });
      assert.equal(monthly.body.user_api_key_rotation_period, 30);
      const days = await app.http.put(PATH).set(admin()).send({ user_api_key_rotation_period: 45 });
      assert.equal(days.body.user_api_key_rotation_period, 45);
      const read = await app.services.store.organisations.settingsOf(app.boot.organisationId, false);
      assert.equal(read!.block_inline_config, true);
      await app.http.put(PATH).set(admin()).send({ block_inline_config: false, user_api_key_rotation_period: null });
    });

    test('validation: unknown fields, out-of-range periods and bad domains are refused', async () => {
      for (const bad of [{ blok_inline_config: true }, { user_api_key_rotation_period: 366 }, { user_api_key_rotation_period: 'daily' }, { email_domains: [{ domain: 'not a domain' }] }, {}]) {
        const res = await app.http.put(PATH).set(admin()).send(bad);
        assert.equal(res.status, 400, JSON.stringify(bad));
      }
    });

    test('a workspace key, or a key without the scope, is refused', async () => {
      const ws = await app.http
        .post('/v1/api-keys/workspace/service')
        .set(admin())
        .send({ name: 'w', workspace_id: 'default', scopes: ['organisation_settings.read'] });
      const denied = await app.http.get(PATH).set({ 'x-gw-api-key': ws.body.key });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'key_kind_not_allowed');
      const reader = await app.http.post('/v1/api-keys/organisation/service').set(admin()).send({ name: 'r', scopes: ['organisation_settings.read'] });
      assert.equal((await app.http.get(PATH).set({ 'x-gw-api-key': reader.body.key })).status, 200);
      const write = await app.http.put(PATH).set({ 'x-gw-api-key': reader.body.key }).send({ block_inline_config: true });
      assert.equal(write.status, 403);
      assert.equal(write.body.error.code, 'missing_scope');
    });
  });

  describe(`organisation settings with BLOCK_INLINE_CONFIG=true (${engine.name})`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ engine, env: { BLOCK_INLINE_CONFIG: 'true' } });
    });
    after(() => app.close());

    test('GET reflects the forced setting even though the organisation opted out', async () => {
      const res = await app.http.get(PATH).set({ 'x-gw-api-key': app.adminKey });
      assert.equal(res.body.block_inline_config, true);
      assert.equal(res.body.block_inline_config_forced, true);
      assert.equal((await app.services.store.organisations.settingsOf(app.boot.organisationId, true))!.block_inline_config, true);
    });
  });
}
