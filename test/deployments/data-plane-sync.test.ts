/**
 * Data-plane sync in one process: a control-plane app and a data-plane app (each its own store),
 * the data plane's sync driven by hand. The snapshot carries credentials sealed for the data plane
 * only (never the clear key, never the control plane's sealed form) and re-sealed under the data
 * plane's key; a second poll is a 304; a change and a revocation apply at once; logs ship from a
 * durable cursor, a re-sent batch adds nothing, and a control plane that is down moves nothing.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { DataPlaneSync, SHIP_BATCH } from '../../gateway/deployment/data-plane.js';
import { TransferKeys } from '../../gateway/deployment/transfer-seal.js';
import { DeploymentSyncStateRepository } from '../../store/repositories/deployment-sync-state.js';
import { storeEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PROVIDER_KEY = 'sk-upstream-secret-0123456789abcdef';

for (const engine of storeEngines()) {
  describe(`data-plane sync (${engine.name})`, () => {
    let cp: TestApp;
    let dp: TestApp;
    let fake: FakeOpenAi;
    let deploymentKey: string;
    let sync: DataPlaneSync;
    const admin = () => ({ 'x-gw-api-key': cp.adminKey });
    const syncOf = (controlPlaneUrl: string) =>
      new DataPlaneSync({ controlPlaneUrl, deploymentKey, intervalMs: 60_000, db: dp.services.db, secrets: dp.services.secrets, bus: dp.services.bus, logger: dp.services.logger, now: Date.now });

    before(async () => {
      fake = await startFakeOpenAi();
      const env = { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' };
      cp = await startTestApp({ engine, env });
      dp = await startTestApp({ engine, env });
      const created = await cp.http.post('/v1/deployments').set(admin()).send({ name: 'edge' });
      deploymentKey = created.body.deployment_key;
      const provider = await cp.http.post('/v1/providers').set(admin()).send({ name: 'Upstream', slug: 'upstream', ai_provider_id: 'openai', key: PROVIDER_KEY, configurations: { custom_host: fake.url } });
      assert.equal(provider.status, 201, JSON.stringify(provider.body));
      sync = syncOf(cp.url);
    });
    after(async () => {
      await dp?.close();
      await cp?.close();
      await fake?.close();
    });

    test('the snapshot seals credentials for the asking data plane only, versions itself, and refuses other keys', async () => {
      const keys = new TransferKeys();
      const answer = await cp.http.get('/v1/deployments/sync').set({ 'x-gw-api-key': deploymentKey, 'x-gw-sync-key': keys.publicKey });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.headers.etag, `"${answer.body.version}"`);
      const stored = (await cp.services.db('providers').where({ slug: 'upstream' }).first()) as { secrets: string };
      assert.ok(!answer.text.includes(PROVIDER_KEY), 'the clear key is not on the wire');
      assert.ok(!answer.text.includes(stored.secrets), 'nor the control plane sealed form');
      const sent = (answer.body.tables.providers as Array<{ slug: string; secrets: string }>).find((row) => row.slug === 'upstream')!;
      assert.ok(keys.openerFor(answer.body.sealing_public_key)(sent.secrets).includes(PROVIDER_KEY), 'the asking data plane opens it');
      assert.throws(() => new TransferKeys().openerFor(answer.body.sealing_public_key)(sent.secrets), 'another key pair cannot');
      assert.ok((answer.body.tables.api_keys as Array<Record<string, unknown>>).every((row) => typeof row.key_hash === 'string' && !('key' in row)));

      const again = await cp.http.get('/v1/deployments/sync').set({ 'x-gw-api-key': deploymentKey, 'x-gw-sync-key': keys.publicKey, 'if-none-match': answer.headers.etag });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      const asAdmin = await cp.http.get('/v1/deployments/sync').set({ ...admin(), 'x-gw-sync-key': keys.publicKey });
      assert.equal(asAdmin.body.error.code, 'not_a_deployment_key');
      const badKey = await cp.http.get('/v1/deployments/sync').set({ 'x-gw-api-key': deploymentKey, 'x-gw-sync-key': 'A'.repeat(60) });
      assert.equal(badKey.status, 400);
      assert.equal(badKey.body.error.code, 'invalid_sync_key');
    });

    test('applied to the data plane: keys and providers serve there, a change and a revocation arrive on the next poll', async () => {
      const key = await cp.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'edge traffic', workspace_id: cp.boot.workspaceId, scopes: ['completions.write'] });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const chat = (apiKey: string) => new OpenAI({ baseURL: `${dp.url}/v1`, apiKey, maxRetries: 0 }).chat.completions.create({ model: '@upstream/gpt-4o', messages: [{ role: 'user', content: 'edge' }] });
      await assert.rejects(chat(key.body.key), (error: { status?: number }) => error.status === 401, 'unknown on the data plane before the sync');

      assert.equal(await sync.pull(), 'applied');
      assert.equal(await sync.pull(), 'current');
      const dpStored = (await dp.services.db('providers').where({ slug: 'upstream' }).first()) as { secrets: string };
      assert.ok(dp.services.secrets.open(dpStored.secrets).includes(PROVIDER_KEY), 'sealed under the data plane key');
      assert.throws(() => cp.services.secrets.open(dpStored.secrets), 'and not the control plane one');
      // The data plane's own bootstrap organisation is gone: it serves the control plane's.
      assert.deepEqual((await dp.services.db('organisations').select('id')).map((row) => row.id), [cp.boot.organisationId]);

      const answer = await chat(key.body.key);
      assert.equal(answer.choices[0]!.message.content, 'You said: edge');
      assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${PROVIDER_KEY}`);

      const config = await cp.http.post('/v1/configs').set(admin()).send({ name: 'Edge route', slug: 'edge-route', config: { virtual_key: 'upstream', override_params: { max_tokens: 7 } } });
      assert.equal(config.status, 201, JSON.stringify(config.body));
      assert.equal(await sync.pull(), 'applied');
      const viaConfig = await new OpenAI({ baseURL: `${dp.url}/v1`, apiKey: key.body.key, maxRetries: 0, defaultHeaders: { 'x-gw-config': 'edge-route' } }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'routed' }] });
      assert.equal(viaConfig.choices[0]!.message.content, 'You said: routed');
      assert.equal(fake.requests.at(-1)!.body.max_tokens, 7);

      assert.equal((await cp.http.delete(`/v1/api-keys/${key.body.id}`).set(admin())).status, 200);
      assert.equal(await sync.pull(), 'applied');
      await assert.rejects(chat(key.body.key), (error: { status?: number }) => error.status === 401, 'revoked on the data plane at the poll');
    });

    // The cursor is SQLite's insertion order: a data plane on Postgres keeps its logs (docs/deployments.md).
    const shipping = engine.databaseUrl ? { skip: 'log shipping runs from a data plane on SQLite only' } : {};
    test('logs ship from a durable cursor; a batch sent again adds nothing; a control plane that is down moves nothing', shipping, async () => {
      await sync.pull();
      const dpLogs = async () => (await dp.services.db('request_logs').select('id')).map((row) => row.id as string);
      const client = new OpenAI({ baseURL: `${dp.url}/v1`, apiKey: dp.adminKey, maxRetries: 0 });
      for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: '@upstream/gpt-4o', messages: [{ role: 'user', content: `log ${i}` }] });
      await dp.services.requestLogs.flush();
      const local = await dpLogs();
      assert.ok(local.length >= 3);

      const state = new DeploymentSyncStateRepository(dp.services.db);
      assert.equal(await state.get('log_cursor'), undefined);
      await assert.rejects(syncOf('http://127.0.0.1:1').shipLogs(), 'a control plane that is down');
      assert.equal(await state.get('log_cursor'), undefined, 'moves nothing');

      let shipped = 0;
      for (let more = true; more; ) {
        const round = await sync.shipLogs();
        shipped += round.shipped;
        more = round.more;
      }
      assert.equal(shipped, local.length, 'every row after the cursor');
      assert.ok(Number(await state.get('log_cursor')) > 0);
      const onCp = async () => (await cp.services.db('request_logs').whereIn('id', local).select('id', 'organisation_id')) as Array<{ id: string; organisation_id: string }>;
      const requestsRolledUp = async () => Number((await cp.services.db('analytics_rollups').where({ grain: 'hour' }).sum({ n: 'requests' }).first())?.n ?? 0);
      assert.equal((await onCp()).length, local.length);
      assert.ok((await onCp()).every((row) => row.organisation_id === cp.boot.organisationId), 'stored under the deployment organisation');
      assert.deepEqual(await sync.shipLogs(), { shipped: 0, more: false }, 'the cursor holds');
      const rolledUp = await requestsRolledUp();
      assert.ok(rolledUp >= local.length, 'shipped rows count in analytics');

      // The acknowledgement was lost: the cursor goes back and every batch is sent again.
      await state.set('log_cursor', '0', new Date().toISOString());
      while ((await sync.shipLogs()).more);
      assert.equal((await onCp()).length, local.length, 'each id once');
      assert.equal(await requestsRolledUp(), rolledUp, 'and counted once');
      // The rows were renumbered under the cursor (a VACUUM): the shipper starts over, adding nothing.
      await state.set('log_cursor', String(1e12), new Date().toISOString());
      assert.equal((await sync.shipLogs()).shipped, Math.min(local.length, SHIP_BATCH));
      assert.ok(Number(await state.get('log_cursor')) <= local.length);
      while ((await sync.shipLogs()).more);
      assert.equal((await onCp()).length, local.length);
      assert.equal(await requestsRolledUp(), rolledUp);
      const audited = (await cp.services.db('audit_logs').select()).map((row) => JSON.stringify(row));
      assert.ok(!audited.some((row) => row.includes('deploymentShipLogs')), 'shipping is traffic, not an audited admin write');
    });

    test('the deployment key never follows a redirect', async () => {
      const seen: string[] = [];
      const elsewhere = createServer((req, res) => {
        seen.push(String(req.headers['x-gw-api-key']));
        res.end('{}');
      });
      const redirecting = createServer((req, res) => {
        res.writeHead(307, { location: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}${req.url}` });
        res.end();
      });
      for (const server of [elsewhere, redirecting]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const redirected = syncOf(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`);
        assert.equal(await redirected.pull(), 'failed');
        if (!engine.databaseUrl) {
          // Rows to ship: the cursor goes back to the start for this one try.
          const state = new DeploymentSyncStateRepository(dp.services.db);
          const cursor = (await state.get('log_cursor')) ?? '0';
          await state.set('log_cursor', '0', new Date().toISOString());
          await assert.rejects(redirected.shipLogs());
          assert.equal(await state.get('log_cursor'), '0');
          await state.set('log_cursor', cursor, new Date().toISOString());
        }
        assert.deepEqual(seen, []);
      } finally {
        for (const server of [elsewhere, redirecting]) await new Promise((resolve) => server.close(resolve));
      }
    });

    test('a data plane refuses admin writes and still answers reads', async () => {
      const guarded = await startTestApp({ engine, env: { GW_CONTROL_PLANE_URL: 'http://127.0.0.1:1', GW_DEPLOYMENT_KEY: 'gw-unused-key-0123456789', GW_SYNC_INTERVAL_MS: '3600000' } });
      try {
        const write = await guarded.http.post('/v1/configs').set({ 'x-gw-api-key': guarded.adminKey }).send({ name: 'local', config: { provider: 'openai' } });
        assert.equal(write.status, 403);
        assert.equal(write.body.error.code, 'data_plane_read_only');
        assert.match(write.body.error.message, /control plane/);
        assert.equal((await guarded.http.get('/v1/configs').set({ 'x-gw-api-key': guarded.adminKey })).status, 200);
      } finally {
        await guarded.close();
      }
    });
  });
}
