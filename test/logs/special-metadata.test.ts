/** The special metadata keys: validated at the gateway, stored in columns of their own, filtered and grouped by, and backfilled for rows logged before the columns existed. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createDb } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { migrations } from '../../store/migrations/index.js';
import { storeEngines } from '../helpers/engines.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { privateDb } from '../helpers/test-db.js';

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

for (const engine of storeEngines()) {
  describe(`special metadata keys (${engine.name})`, () => {
    let gw: GatewayApp;
    let headers: Record<string, string>;
    const special = { _user: 'ana', _environment: 'production', _organisation: 'acme', _prompt: 'pp-welcome', team: 'core' };
    before(async () => {
      gw = await startGatewayApp({ engine });
      headers = { 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-up' };
      const calls = [special, { ...special, _environment: 'staging', _organisation: 'globex', _prompt: 'pp-other', _user: 'bob' }, { team: 'core' }];
      for (const metadata of calls) {
        const res = await gw.app.http.post('/v1/chat/completions').set({ ...headers, 'x-gw-metadata': JSON.stringify(metadata) }).send(body);
        assert.equal(res.status, 200);
      }
      await logsSettled(gw, 3);
      await gw.app.services.requestLogs.flush();
    });
    after(() => gw.close());

    it('each special key is a column of the log row; other keys stay in the metadata only', async () => {
      const id = gw.logs[0]!.id;
      const row = await gw.app.services.db('request_logs').where({ id }).first();
      assert.deepEqual(
        { user_id: row.user_id, environment: row.environment, end_organisation: row.end_organisation, prompt_id: row.prompt_id },
        { user_id: 'ana', environment: 'production', end_organisation: 'acme', prompt_id: 'pp-welcome' },
      );
      const plain = await gw.app.services.db('request_logs').where({ id: gw.logs[2]!.id }).first();
      assert.deepEqual([plain.user_id, plain.environment, plain.end_organisation, plain.prompt_id], [null, null, null, null]);
    });

    it('the logs list filters on them, alone or with ordinary keys', async () => {
      const list = async (metadata: string) =>
        (await gw.app.http.get('/v1/logs').query({ metadata }).set({ 'x-gw-api-key': gw.app.adminKey })).body.data.map((entry: { id: string }) => entry.id);
      assert.deepEqual(await list('_environment=production'), [gw.logs[0]!.id]);
      assert.deepEqual(await list('_organisation=globex,_prompt=pp-other'), [gw.logs[1]!.id]);
      assert.deepEqual(await list('_user=ana,team=core'), [gw.logs[0]!.id]);
      assert.deepEqual(await list('_environment=nowhere'), []);
    });

    it('analytics group by each of them, by name or as metadata keys', async () => {
      const groups = async (by: string, query: Record<string, string> = {}) => {
        const res = await gw.app.http.get(`/v1/analytics/groups/${by}`).query(query).set({ 'x-gw-api-key': gw.app.adminKey });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return Object.fromEntries(res.body.data.map((group: { key: string | null; requests: number }) => [String(group.key), group.requests]));
      };
      assert.deepEqual(await groups('environment'), { production: 1, staging: 1, null: 1 });
      assert.deepEqual(await groups('organisation'), { acme: 1, globex: 1, null: 1 });
      assert.deepEqual(await groups('prompt'), { 'pp-welcome': 1, 'pp-other': 1, null: 1 });
      assert.deepEqual(await groups('user'), { ana: 1, bob: 1, null: 1 });
      assert.deepEqual(await groups('metadata', { metadata_key: '_environment' }), { production: 1, staging: 1, null: 1 });
    });

    it('a special key must be 1 to 128 characters: 400 before any upstream call', async () => {
      const calls = gw.fake.requests.length;
      for (const metadata of [{ _environment: 'x'.repeat(129) }, { _prompt: '' }]) {
        const res = await gw.app.http.post('/v1/chat/completions').set({ ...headers, 'x-gw-metadata': JSON.stringify(metadata) }).send(body);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.param, 'x-gw-metadata');
        assert.match(res.body.error.message, /x-gw-metadata\._(environment|prompt) must be 1 to 128 characters/);
      }
      assert.equal(gw.fake.requests.length, calls);
    });
  });

  describe(`special metadata keys in custom logs (${engine.name})`, () => {
    let gw: GatewayApp;
    before(async () => {
      gw = await startGatewayApp({ engine });
    });
    after(() => gw.close());

    it('fill the same columns, and a value outside 1 to 128 characters is refused naming the field', async () => {
      const admin = { 'x-gw-api-key': gw.app.adminKey };
      const created = await gw.app.http.post('/v1/logs').set(admin).send({ logs: [{ request: {}, response: {}, metadata: { _environment: 'batch', _user: 'cli' } }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const row = await gw.app.services.db('request_logs').where({ source: 'custom' }).first();
      assert.deepEqual([row.environment, row.user_id], ['batch', 'cli']);
      const tooLong = await gw.app.http.post('/v1/logs').set(admin).send({ logs: [{ request: {}, response: {}, metadata: { _user: 'u'.repeat(300) } }] });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.error.param, 'logs[0].metadata._user');
    });
  });

  describe(`special metadata columns are backfilled for rows logged before them (${engine.name})`, () => {
    let db: Knex;
    let drop: () => Promise<void>;
    before(async () => {
      const made = await privateDb(engine.databaseUrl);
      drop = made.drop;
      db = createDb(made.options);
    });
    after(async () => {
      await db.destroy();
      await drop();
    });

    it('the migration copies _environment, _organisation and _prompt out of the metadata', async () => {
      // Every migration before 010, then a row as 004 wrote it, then the rest.
      const before010 = Object.keys(migrations).filter((name) => name < '010');
      const source = {
        getMigrations: async () => before010,
        getMigrationName: (name: string) => name,
        getMigration: async (name: string) => migrations[name]!,
      };
      await db.migrate.latest({ migrationSource: source });
      const id = randomUUID();
      await db('request_logs').insert({
        id, organisation_id: 'org', workspace_id: 'ws', source: 'gateway', trace_id: 't', created_at: 1, status: 200, latency_ms: 1,
        stream: false, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost: 0, cache_status: 'DISABLED', cache_hit: false,
        retry_count: 0, is_error: false, rescued: false, route: '[]', request_headers: '{}',
        metadata: JSON.stringify({ _environment: 'prod', _organisation: 'acme', _prompt: 'pp-1', other: 'x' }),
      });
      await migrateToLatest(db);
      const row = await db('request_logs').where({ id }).first();
      assert.deepEqual([row.environment, row.end_organisation, row.prompt_id], ['prod', 'acme', 'pp-1']);
    });
  });
}
