/**
 * Every kind of gateway request reaches the request_logs table with what the issue lists:
 * success (with a saved config, a fallback and its cost), upstream error, cache hit (cost kept
 * as savings), stream (usage and the assembled answer) and a guardrail denial (446).
 * Rows are read back from the database after the real writer flushed them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChatStage } from '../../gateway/chat/chat-state.js';
import { chatStages } from '../../gateway/chat/stages.js';
import { costNanoUsd, NANO_USD_PER_USD, priceOf } from '../../gateway/limits/pricing/cost.js';
import type { RequestLogRecord } from '../../store/repositories/request-logs.js';
import { ApiError } from '../../core/errors.js';
import { storeEngines } from '../helpers/engines.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { workspaceKey } from './log-fixtures.js';

const question = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

for (const engine of storeEngines()) {
  describe(`every kind of gateway request is logged (${engine.name})`, () => {
    let gw: GatewayApp;
    const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });
    const direct = () => ({ ...admin(), 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-upstream' });
    /** The gpt-4o price of the fake's usage, in USD, from the bundled pricing table. */
    const expectedCost = () => costNanoUsd(priceOf('openai', 'gpt-4o'), FAKE_USAGE) / NANO_USD_PER_USD;

    before(async () => {
      gw = await startGatewayApp({ engine });
    });
    after(() => gw.close());

    /** Sends one call, waits for its entry and reads the stored row back by trace id. */
    async function loggedRow(send: () => Promise<{ status: number }>, traceId: string): Promise<RequestLogRecord> {
      const before = gw.logs.length;
      await send();
      await logsSettled(gw, before + 1);
      await gw.app.services.requestLogs.flush();
      const page = await gw.app.services.store.requestLogs.list({ organisation_id: gw.app.boot.organisationId, trace_id: traceId }, { limit: 10 });
      assert.equal(page.data.length, 1, `one row for ${traceId}`);
      return (await gw.app.services.store.requestLogs.get({ organisation_id: gw.app.boot.organisationId }, page.data[0]!.id))!;
    }

    test('a success through a saved config that fell back: config, route, rescue, tokens, cost, ids and bodies', async () => {
      const target = { provider: 'openai', api_key: 'sk-config', custom_host: gw.fake.url };
      const saved = await gw.app.http
        .post('/v1/configs')
        .set(admin())
        .send({ name: 'Logged fallback', slug: 'logged-fallback', config: { strategy: { mode: 'fallback' }, targets: [target, target] } });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      gw.fake.next({ kind: 'error', status: 503, message: 'overloaded' });
      const row = await loggedRow(
        () =>
          gw.app.http
            .post('/v1/chat/completions')
            .set({ ...admin(), 'x-gw-config': 'logged-fallback', 'x-gw-trace-id': 'log-success', 'x-gw-span-id': 'span-1', 'x-gw-metadata': JSON.stringify({ env: 'test', _user: 'ana' }) })
            .send(question)
            .expect(200),
        'log-success',
      );
      assert.equal(row.status, 200);
      assert.equal(row.config_id, saved.body.id);
      assert.equal(row.provider, 'openai');
      assert.equal(row.model, 'gpt-4o');
      assert.equal(row.span_id, 'span-1');
      assert.deepEqual(row.metadata, { env: 'test', _user: 'ana' });
      assert.equal(row.workspace_id, gw.app.boot.workspaceId);
      assert.ok(row.api_key_id, 'the calling key is recorded');
      assert.deepEqual(row.route.map((step) => [step.path, step.status]), [['0', 503], ['1', 200]]);
      assert.deepEqual([row.prompt_tokens, row.completion_tokens, row.total_tokens], [FAKE_USAGE.prompt_tokens, FAKE_USAGE.completion_tokens, FAKE_USAGE.total_tokens]);
      assert.ok(expectedCost() > 0, 'gpt-4o is priced in the bundled table');
      assert.equal(row.cost, expectedCost());
      assert.equal(row.cache_status, 'DISABLED');
      assert.equal(row.stream, false);
      assert.deepEqual((row.request_body as { messages: unknown }).messages, question.messages);
      assert.equal((row.response_body as { object: string }).object, 'chat.completion');
      assert.equal(row.error, null);
      const rescued = await gw.app.services.db('request_logs').where({ id: row.id }).first('rescued', 'user_id');
      assert.ok(Boolean(rescued.rescued), 'a success after a fallback counts as rescued');
      assert.equal(rescued.user_id, 'ana');
    });

    test('an upstream error: its status, the error with its type, no cost', async () => {
      gw.fake.next({ kind: 'error', status: 500, message: 'boom', code: 'server_error' });
      const row = await loggedRow(() => gw.app.http.post('/v1/chat/completions').set({ ...direct(), 'x-gw-trace-id': 'log-error' }).send(question).expect(500), 'log-error');
      assert.equal(row.status, 500);
      assert.deepEqual(row.error, { code: 'server_error', message: 'boom', type: 'upstream_error' });
      assert.equal(row.cost, 0);
      assert.equal(row.response_body, null);
    });

    test('a cache hit: HIT, the provider that would have served, and the cost it saved', async () => {
      const config = JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, cache: { mode: 'simple' } });
      const ask = (trace: string) => () =>
        gw.app.http
          .post('/v1/chat/completions')
          .set({ ...admin(), 'x-gw-config': config, 'x-gw-trace-id': trace })
          .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'cache me' }] })
          .expect(200);
      assert.equal((await loggedRow(ask('log-cache-miss'), 'log-cache-miss')).cache_status, 'MISS');
      const hit = await loggedRow(ask('log-cache-hit'), 'log-cache-hit');
      assert.equal(hit.cache_status, 'HIT');
      assert.equal(hit.provider, 'openai');
      assert.equal(hit.cost, expectedCost());
      assert.equal(hit.total_tokens, FAKE_USAGE.total_tokens);
      const flags = await gw.app.services.db('request_logs').where({ id: hit.id }).first('cache_hit');
      assert.ok(Boolean(flags.cache_hit));
    });

    test('a cache hit through a target that overrides the model: the hit names the target\'s provider and model, priced as it', async () => {
      const config = JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, override_params: { model: 'gpt-4o-mini' }, cache: { mode: 'simple' } });
      const ask = (trace: string) => () =>
        gw.app.http
          .post('/v1/chat/completions')
          .set({ ...admin(), 'x-gw-config': config, 'x-gw-trace-id': trace })
          .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'cache me, overridden' }] })
          .expect(200);
      const miss = await loggedRow(ask('log-override-miss'), 'log-override-miss');
      assert.equal(miss.model, 'gpt-4o-mini');
      const hit = await loggedRow(ask('log-override-hit'), 'log-override-hit');
      assert.equal(hit.cache_status, 'HIT');
      assert.equal(hit.provider, 'openai');
      assert.equal(hit.model, 'gpt-4o-mini', 'the model the target would have called, not the request\'s');
      assert.equal(hit.cost, costNanoUsd(priceOf('openai', 'gpt-4o-mini'), FAKE_USAGE) / NANO_USD_PER_USD);
    });

    test('a cache hit through a saved provider (a config target @slug): the provider and model of the miss', async () => {
      const saved = await gw.app.http.post('/v1/providers').set(admin()).send({ name: 'Cached saved', slug: 'cached-saved', ai_provider_id: 'openai', key: 'sk-saved', custom_host: gw.fake.url });
      assert.equal(saved.status, 201, saved.text);
      const ask = (trace: string) => () =>
        gw.app.http
          .post('/v1/chat/completions')
          .set({ ...admin(), 'x-gw-config': JSON.stringify({ provider: '@cached-saved', cache: { mode: 'simple' } }), 'x-gw-trace-id': trace })
          .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'cache me, saved' }] })
          .expect((res) => assert.equal(res.status, 200, res.text));
      const miss = await loggedRow(ask('log-saved-miss'), 'log-saved-miss');
      const hit = await loggedRow(ask('log-saved-hit'), 'log-saved-hit');
      assert.deepEqual([miss.cache_status, hit.cache_status], ['MISS', 'HIT']);
      assert.deepEqual([hit.provider, hit.model], [miss.provider, miss.model]);
      assert.equal(hit.provider, 'openai');
      assert.equal(hit.model, 'gpt-4o');
    });

    test('a stream: logged when it ends, with usage, first byte and the assembled answer', async () => {
      const row = await loggedRow(
        () => gw.app.http.post('/v1/chat/completions').set({ ...direct(), 'x-gw-trace-id': 'log-stream' }).send({ ...question, stream: true }).expect(200),
        'log-stream',
      );
      assert.equal(row.stream, true);
      assert.equal(row.status, 200);
      assert.equal(row.total_tokens, FAKE_USAGE.total_tokens);
      assert.equal(row.cost, expectedCost());
      assert.ok(row.first_byte_ms !== null && row.first_byte_ms >= 0);
      const answer = row.response_body as { object: string; choices: Array<{ message: { content: string }; finish_reason: string }> };
      assert.equal(answer.object, 'chat.completion');
      assert.ok(answer.choices[0]!.message.content.length > 0);
      assert.equal(answer.choices[0]!.finish_reason, 'stop');
    });

    test('calls refused before the pipeline (a body the spec rejects, a key without the scope) are logged too', async () => {
      const invalid = await loggedRow(
        () => gw.app.http.post('/v1/chat/completions').set({ ...direct(), 'x-gw-trace-id': 'log-invalid' }).send({ model: 'gpt-4o' }).expect(400),
        'log-invalid',
      );
      assert.equal(invalid.status, 400);
      assert.equal(invalid.model, 'gpt-4o');
      assert.equal(invalid.error?.type, 'invalid_request_error');
      assert.deepEqual(invalid.request_body, { model: 'gpt-4o' });
      assert.equal(invalid.cost, 0);

      const key = await workspaceKey(gw.app, 'default', ['logs.list']);
      const refused = await loggedRow(
        () => gw.app.http.post('/v1/chat/completions').set({ ...direct(), 'x-gw-api-key': key, 'x-gw-trace-id': 'log-no-scope' }).send(question).expect(403),
        'log-no-scope',
      );
      assert.equal(refused.status, 403);
      assert.equal(refused.error?.type, 'permission_error');
      assert.notEqual(refused.api_key_id, invalid.api_key_id, 'logged under the key that called');
    });

    test('a guardrail denial thrown by the pipeline is logged as 446 with type guardrail_error', async () => {
      // Stands in for an input guardrail stage: denies before routing, as a deny verdict does.
      const deny: ChatStage = {
        name: 'test-deny',
        run() {
          throw new ApiError(446, 'guardrail_denied', 'Blocked by an input guardrail', 'guardrail_error');
        },
      };
      const stages = chatStages as ChatStage[];
      const at = stages.findIndex((stage) => stage.name === 'route');
      stages.splice(at, 0, deny);
      const upstreamCalls = gw.fake.requests.length;
      let row: RequestLogRecord;
      try {
        row = await loggedRow(async () => {
          const response = await gw.app.http.post('/v1/chat/completions').set({ ...direct(), 'x-gw-trace-id': 'log-denied' }).send(question);
          assert.equal(response.status, 446);
          assert.equal(response.body.error.type, 'guardrail_error');
          return response;
        }, 'log-denied');
      } finally {
        stages.splice(stages.indexOf(deny), 1);
      }
      assert.equal(row.status, 446);
      assert.deepEqual(row.error, { code: 'guardrail_denied', message: 'Blocked by an input guardrail', type: 'guardrail_error' });
      assert.equal(gw.fake.requests.length, upstreamCalls, 'denied before any upstream call');
      const listed = await gw.app.http.get('/v1/logs').query({ status: '446' }).set(admin());
      assert.deepEqual(listed.body.data.map((log: { trace_id: string }) => log.trace_id), ['log-denied']);
    });
  });
}
