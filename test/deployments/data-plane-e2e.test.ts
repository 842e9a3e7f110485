/**
 * A control-plane gw and a data-plane gw as two processes on loopback (the entry `make run`
 * starts, each with its own store and encryption key; the data plane on Postgres, in a database
 * of its own, when GW_TEST_DATABASE_URL is set, else both on SQLite): a key made on the control plane
 * serves on the data plane within seconds, a config change reaches it, admin writes there are
 * refused, the control plane stopped mid-load and restarted receives every log row exactly once,
 * and the data plane restarted while the control plane is down serves from its last good copy.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import OpenAI from 'openai';
import { createDb } from '../../store/db.js';
import { storeEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { ALL_WORKSPACES } from '../../store/rollups/rollup-deltas.js';
import { GwProcesses, ownPostgresDatabase, until } from './gw-processes.js';

const ADMIN_KEY = 'gw-test-admin-key-dataplane-0123456789';
/** Requests in each phase of the load (before, during and after the outage), and a bound on the whole. */
const PHASE = 10;
const MAX_LOAD = 2_000;
/** Between requests of the load: it spans the control plane's restart (a tsx start, up to a few minutes) without piling up rows. */
const PACE_MS = 100;

describe('a data-plane gw synced from a control-plane gw (two processes)', () => {
  const processes = new GwProcesses();
  let fake: FakeOpenAi | undefined;
  let dpDatabase: Awaited<ReturnType<typeof ownPostgresDatabase>> | undefined;
  after(async () => {
    await processes.close();
    await fake?.close();
    await dpDatabase?.drop();
  });
  const gw = (name: string, env: Record<string, string>) => processes.gw(name, env);

  test('keys and configs reach the data plane, writes there are refused, logs survive a control-plane outage, and a restart serves the last good copy', async () => {
    fake = await startFakeOpenAi();
    const cp = await gw('control-plane', { GW_ADMIN_API_KEY: ADMIN_KEY });
    await cp.start();
    const admin = { 'x-gw-api-key': ADMIN_KEY, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${cp.url}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
      const json = (await response.json()) as Record<string, unknown>;
      assert.ok(response.status < 300, `${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    await post('/v1/providers', { name: 'Upstream', slug: 'upstream', ai_provider_id: 'openai', key: 'sk-upstream-e2e-0123456789', configurations: { custom_host: fake.url } });
    const deployment = await post('/v1/deployments', { name: 'edge' });

    const postgresUrl = storeEngines().find((engine) => engine.databaseUrl)?.databaseUrl;
    if (postgresUrl) dpDatabase = await ownPostgresDatabase(postgresUrl);
    const dp = await gw('data-plane', {
      GW_CONTROL_PLANE_URL: cp.url,
      GW_DEPLOYMENT_KEY: String(deployment.deployment_key),
      GW_SYNC_INTERVAL_MS: '300',
      ...(dpDatabase ? { GW_DATABASE_URL: dpDatabase.url } : {}),
    });
    await dp.start();
    const workspaces = (await (await fetch(`${cp.url}/v1/workspaces`, { headers: admin })).json()) as { data: Array<{ id: string }> };
    const key = await post('/v1/api-keys/workspace/service', { name: 'edge traffic', workspace_id: workspaces.data[0]!.id, scopes: ['completions.write'] });
    const client = (headers: Record<string, string> = {}) => new OpenAI({ baseURL: `${dp.url}/v1`, apiKey: String(key.key), maxRetries: 0, defaultHeaders: headers });
    const chat = (content: string, headers?: Record<string, string>) => client(headers).chat.completions.create({ model: '@upstream/gpt-4o', messages: [{ role: 'user', content }] });

    const keyArrived = Date.now();
    await until('the new key to serve on the data plane', async () => (await chat('first')).choices[0]!.message.content === 'You said: first' || undefined);
    assert.ok(Date.now() - keyArrived < 15_000, `the key served after ${Date.now() - keyArrived} ms`);

    await post('/v1/configs', { name: 'Edge route', slug: 'edge-route', config: { virtual_key: 'upstream', override_params: { max_tokens: 9 } } });
    await until('the config to reach the data plane', async () => {
      await chat('configured', { 'x-gw-config': 'edge-route' });
      return fake!.requests.at(-1)!.body.max_tokens === 9 || undefined;
    });

    const updated = await fetch(`${cp.url}/v1/configs/edge-route`, { method: 'PUT', headers: admin, body: JSON.stringify({ config: { virtual_key: 'upstream', override_params: { max_tokens: 5 } } }) });
    assert.equal(updated.status, 200, await updated.text());
    await until('the config update to reach the data plane', async () => {
      await chat('updated', { 'x-gw-config': 'edge-route' });
      return fake!.requests.at(-1)!.body.max_tokens === 5 || undefined;
    });

    const refused = await fetch(`${dp.url}/v1/configs`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'local', config: { virtual_key: 'upstream' } }) });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'data_plane_read_only');

    // Load on the data plane while the control plane stops and comes back, with requests in each phase.
    const dpDb = createDb(dpDatabase ? { databaseUrl: dpDatabase.url } : { sqliteFile: path.join(dp.dataDir, 'gw.sqlite') });
    const cpDb = createDb({ sqliteFile: path.join(cp.dataDir, 'gw.sqlite') });
    try {
      const localIds = async () => (await dpDb('request_logs').select('id')).map((row) => row.id as string);
      const arrivedOf = async (ids: string[]) => Number((await cpDb('request_logs').whereIn('id', ids).count({ n: '*' }).first())!.n);
      let sent = 0;
      let loading = true;
      const load = (async () => {
        for (; loading && sent < MAX_LOAD; sent++) {
          assert.equal((await chat(`load ${sent}`)).choices[0]!.message.content, `You said: load ${sent}`);
          await new Promise((resolve) => setTimeout(resolve, PACE_MS));
        }
      })();
      const sentAfter = (count: number) => until(`${count} requests of load`, async () => sent >= count || undefined);
      await sentAfter(PHASE);
      await cp.stop();
      const atStop = sent;
      await sentAfter(atStop + PHASE);
      // Past a few ship rounds with the control plane down: what was logged meanwhile is still only on the data plane.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const duringOutage = await localIds();
      assert.ok((await arrivedOf(duringOutage)) < duringOutage.length, 'rows wait on the data plane during the outage');
      await cp.start();
      const atRestart = sent;
      await sentAfter(atRestart + PHASE);
      loading = false;
      await load;

      const shippedAll = async () => {
        const local = await localIds();
        return local.length >= sent && (await arrivedOf(local)) === local.length ? local : undefined;
      };
      const local = await until('every log row on the control plane', shippedAll);
      // The control plane serves no traffic of its own here: each of its rows and rollup counts is a shipped one, once.
      assert.equal(Number((await cpDb('request_logs').count({ n: '*' }).first())!.n), local.length);
      const rolled = await cpDb('analytics_rollups').where({ grain: 'day', dimension_set: 'workspace', workspace_id: ALL_WORKSPACES }).sum({ n: 'requests' }).first();
      assert.equal(Number(rolled!.n), local.length, 'each shipped row counted once');

      // The data plane restarts while the control plane is down: it serves from its own store.
      await cp.stop();
      await dp.stop();
      await dp.start();
      assert.equal((await chat('after restart', { 'x-gw-config': 'edge-route' })).choices[0]!.message.content, 'You said: after restart');
      assert.equal(fake.requests.at(-1)!.body.max_tokens, 5, 'with the last config it was sent');
    } finally {
      await dpDb.destroy();
      await cpDb.destroy();
    }
  });
});
