/**
 * Data-plane sync in one process: a control-plane app and a data-plane app (each its own store),
 * the data plane's sync driven by hand. The snapshot carries credentials sealed for the data plane
 * only (never the clear key, never the control plane's sealed form) and re-sealed under the data
 * plane's key; a second poll is a 304; a change and a revocation apply at once; logs ship from the
 * data plane's outbox on both engines, a re-sent batch adds nothing, and a control plane that is
 * down keeps them queued.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { DataPlaneSync } from '../../gateway/deployment/data-plane.js';
import { TransferKeys } from '../../gateway/deployment/transfer-seal.js';
import { storeEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PROVIDER_KEY = 'sk-upstream-secret-0123456789abcdef';

/**
 * A loopback stand-in in front of the control plane: runs `meanwhile` while the request is held,
 * forwards it, and answers with the control plane's answer, or drops the connection after the
 * control plane has stored the batch (`drop the answer`: a lost acknowledgement).
 */
async function relayTo(target: string, meanwhile: () => Promise<void>, mode: 'answer' | 'drop the answer' = 'answer') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      await meanwhile();
      const headers = { 'content-type': String(req.headers['content-type']), 'x-gw-api-key': String(req.headers['x-gw-api-key']) };
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
      const text = await answer.text();
      if (mode === 'drop the answer') return void req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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
      const created = await cp.http.post('/v1/deployments').set(admin()).send({ name: 'edge' });
      deploymentKey = created.body.deployment_key;
      // A data plane whose own jobs find no control plane: the test drives its sync by hand.
      dp = await startTestApp({ engine, env: { ...env, GW_CONTROL_PLANE_URL: 'http://127.0.0.1:1', GW_DEPLOYMENT_KEY: deploymentKey, GW_SYNC_INTERVAL_MS: '3600000' } });
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

    test('logs ship from the outbox: a control plane that is down keeps them queued; a lost ack adds nothing; a row written while a batch is in flight goes next', async () => {
      const key = await cp.http.post('/v1/api-keys/workspace/service').set(admin()).send({ name: 'edge logs', workspace_id: cp.boot.workspaceId, scopes: ['completions.write'] });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      assert.equal(await sync.pull(), 'applied');
      const client = new OpenAI({ baseURL: `${dp.url}/v1`, apiKey: key.body.key, maxRetries: 0 });
      const chatOnDp = async (content: string) => {
        await client.chat.completions.create({ model: '@upstream/gpt-4o', messages: [{ role: 'user', content }] });
        await dp.services.requestLogs.flush();
      };
      const dpLogs = async () => (await dp.services.db('request_logs').select('id')).map((row) => row.id as string).sort();
      const queued = async () => (await dp.services.db('log_outbox').select('log_id')).map((row) => row.log_id as string).sort();
      const onCp = async (ids: string[]) => (await cp.services.db('request_logs').whereIn('id', ids).select('id', 'organisation_id')) as Array<{ id: string; organisation_id: string }>;
      const requestsRolledUp = async () => Number((await cp.services.db('analytics_rollups').where({ grain: 'hour' }).sum({ n: 'requests' }).first())?.n ?? 0);
      const shipAll = async (through = sync) => {
        let shipped = 0;
        for (let more = true; more; ) {
          const round = await through.shipLogs();
          shipped += round.shipped;
          more = round.more;
        }
        return shipped;
      };

      for (let i = 0; i < 3; i++) await chatOnDp(`log ${i}`);
      const local = await dpLogs();
      assert.ok(local.length >= 3);
      assert.deepEqual(await queued(), local, 'every row the data plane wrote is queued, in its own transaction');

      await assert.rejects(syncOf('http://127.0.0.1:1').shipLogs(), 'a control plane that is down');
      assert.deepEqual(await queued(), local, 'keeps every row queued');

      assert.equal(await shipAll(), local.length);
      assert.deepEqual(await queued(), [], 'acknowledged ids leave the outbox');
      assert.equal((await onCp(local)).length, local.length);
      assert.ok((await onCp(local)).every((row) => row.organisation_id === cp.boot.organisationId), 'stored under the deployment organisation');
      assert.deepEqual(await sync.shipLogs(), { shipped: 0, more: false });
      const rolledUp = await requestsRolledUp();
      assert.ok(rolledUp >= local.length, 'shipped rows count in analytics');
      // A gw that is not a data plane queues nothing: neither what it receives nor its own traffic.
      await new OpenAI({ baseURL: `${cp.url}/v1`, apiKey: cp.adminKey, maxRetries: 0 }).chat.completions.create({ model: '@upstream/gpt-4o', messages: [{ role: 'user', content: 'on the control plane' }] });
      await cp.services.requestLogs.flush();
      assert.equal((await cp.services.db('log_outbox').count({ n: '*' }).first())?.n, 0);

      // The control plane stores a batch but its answer is lost: the rows stay queued and go again, counted once.
      await chatOnDp('ack lost');
      const lostAck = await relayTo(cp.url, async () => {}, 'drop the answer');
      try {
        await assert.rejects(syncOf(lostAck.url).shipLogs());
      } finally {
        await lostAck.close();
      }
      const pending = await queued();
      assert.equal(pending.length, 1);
      assert.equal((await onCp(pending)).length, 1, 'the control plane had stored it');
      const afterLostAck = await requestsRolledUp();
      assert.equal(await shipAll(), 1, 'sent again');
      assert.deepEqual(await queued(), []);
      assert.equal(await requestsRolledUp(), afterLostAck, 'and added nothing');

      // A row committed while a batch is on the wire is not acknowledged with it: it goes with the next.
      await chatOnDp('before the batch');
      const [first] = await queued();
      let written: string[] = [];
      const slow = await relayTo(cp.url, async () => {
        const before = await dpLogs();
        await chatOnDp('during the batch');
        written = (await dpLogs()).filter((id) => !before.includes(id));
      });
      try {
        assert.deepEqual(await syncOf(slow.url).shipLogs(), { shipped: 1, more: false });
      } finally {
        await slow.close();
      }
      assert.equal(written.length, 1);
      assert.deepEqual(await queued(), written, 'only the acknowledged id left');
      assert.equal((await onCp([first!])).length, 1);
      assert.equal((await onCp(written)).length, 0);
      assert.equal(await shipAll(), 1);
      assert.equal((await onCp(written)).length, 1);

      // A queued row that retention deleted before it went: its id leaves without a request.
      await dp.services.db('log_outbox').insert({ log_id: 'deleted-by-retention' });
      assert.deepEqual(await syncOf('http://127.0.0.1:1').shipLogs(), { shipped: 0, more: false });
      assert.deepEqual(await queued(), []);
      const audited = (await cp.services.db('audit_logs').select()).map((row) => JSON.stringify(row));
      assert.ok(!audited.some((row) => row.includes('deploymentShipLogs')), 'shipping is traffic, not an audited admin write');
    });

    test('shipped rows of a workspace that stores no bodies arrive without them', async () => {
      const shipped = await cp.services.db('request_logs').first();
      assert.ok(shipped, 'a row shipped by the test before');
      await cp.http.put('/v1/admin/organisation/settings').set(admin()).send({ security_settings: { logging: { store_request_bodies: false } } });
      try {
        const row = { ...shipped, id: 'shipped-with-body', request_body: { messages: [{ role: 'user', content: 'private' }] }, response_body: { answer: 'private' } };
        const answer = await cp.http.post('/v1/deployments/logs').set({ 'x-gw-api-key': deploymentKey }).send({ logs: [row] });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const stored = await cp.services.db('request_logs').where({ id: 'shipped-with-body' }).first();
        assert.equal(stored.request_body, null);
        assert.equal(stored.response_body, null);
      } finally {
        await cp.http.put('/v1/admin/organisation/settings').set(admin()).send({ security_settings: {} });
      }
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
        // A row to ship (one the control plane already holds): it stays queued.
        const { id } = (await dp.services.db('request_logs').select('id').first()) as { id: string };
        await dp.services.db('log_outbox').insert({ log_id: id });
        await assert.rejects(redirected.shipLogs());
        assert.equal((await dp.services.db('log_outbox').where({ log_id: id })).length, 1);
        assert.deepEqual(seen, []);
        assert.equal((await sync.shipLogs()).shipped, 1);
      } finally {
        for (const server of [elsewhere, redirecting]) await new Promise((resolve) => server.close(resolve));
      }
    });

    test('the counters endpoint: a deployment reserves and settles on its own policies only, and cannot reset', async () => {
      const policy = await cp.http.post('/v2/policies/usage-limits').set(admin()).send({ name: 'counted', type: 'requests', credit_limit: 2 });
      assert.equal(policy.status, 201, JSON.stringify(policy.body));
      const counters = (operation: object, headers: Record<string, string> = { 'x-gw-api-key': deploymentKey }) => cp.http.post('/v1/deployments/counters').set(headers).send(operation);
      const key = `limits:u:${policy.body.id}:0:org`;
      const reserve = { op: 'reserve', key, amount: 1, limit: 2, ttl_ms: 60_000 };
      assert.deepEqual((await counters(reserve)).body, { allowed: true, used: 1 });
      assert.deepEqual((await counters(reserve)).body, { allowed: true, used: 2 });
      assert.deepEqual((await counters(reserve)).body, { allowed: false, used: 2 }, 'the limit holds on the control plane counter');
      assert.equal((await counters({ op: 'settle', key, delta: -1 })).status, 200);
      assert.deepEqual((await counters({ op: 'read', keys: [key] })).body, { values: [1] });
      assert.deepEqual(await cp.services.limitCounters.read([key]), [1], 'the control plane own counters');

      const foreign = await counters({ ...reserve, key: 'limits:u:some-other-policy:0:org' });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.body.error.code, 'not_your_counter');
      assert.equal((await counters({ ...reserve, key: 'cache:anything' })).body.error.code, 'invalid_counter_key');
      assert.equal((await counters({ op: 'remove', key })).status, 400, 'no reset through a deployment key');
      assert.equal((await counters(reserve, admin())).body.error.code, 'not_a_deployment_key');
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
