import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { assertEndpointRolledUp } from '../logs/rollup-check.js';
import { ALL_WORKSPACES } from '../../store/rollups/rollup-deltas.js';

const PROVIDER_KEY = 'sk-prompt-provider-key-000000';

for (const engine of fullEngines()) {
  describe(`prompt completions (${engine.name})`, () => {
    let gw: GatewayApp;
    let promptId: string;
    const admin = () => ({ 'x-gw-api-key': gw.app.adminKey });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) => gw.app.http.post(path).set({ ...admin(), ...headers }).send(body as object);

    before(async () => {
      gw = await startGatewayApp({ engine });
      const provider = await post('/v1/providers', { name: 'pc-openai', ai_provider_id: 'openai', key: PROVIDER_KEY });
      assert.equal(provider.status, 201, JSON.stringify(provider.body));
      const prompt = await post('/v1/prompts', {
        name: 'pc-greeting',
        virtual_key: '@pc-openai',
        model: 'gpt-4o-mini',
        parameters: { temperature: 0.3 },
        string: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi {{name}}' }],
      });
      assert.equal(prompt.status, 201, JSON.stringify(prompt.body));
      promptId = prompt.body.id;
      const versions = await gw.app.http.get(`/v1/prompts/${promptId}/versions`).set(admin());
      await gw.app.http.put(`/v1/prompts/${promptId}/versions/${versions.body.data[0].id}`).set(admin()).send({ label_id: 'production' });
      await gw.app.http.put(`/v1/prompts/${promptId}`).set(admin()).send({ patch: true, string: [{ role: 'user', content: 'Hello there {{name}}' }] });
    });
    after(async () => {
      await gw.close();
    });

    test('a completion runs the rendered prompt on its saved provider; the log row carries prompt, version and label', async () => {
      const before = gw.fake.requests.length;
      const answer = await post(`/v1/prompts/${promptId}@production/completions`, { variables: { name: 'Ann' }, max_completion_tokens: 20 });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.object, 'chat.completion');
      assert.equal(answer.headers['x-gw-provider'], 'openai');
      const sent = gw.fake.requests[before]!;
      assert.equal(sent.headers.authorization, `Bearer ${PROVIDER_KEY}`);
      assert.equal(sent.body.model, 'gpt-4o-mini');
      assert.equal(sent.body.temperature, 0.3);
      assert.equal(sent.body.max_completion_tokens, 20);
      assert.deepEqual(sent.body.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi Ann' }]);

      // Version 2 (latest, not default) by number.
      const v2 = await post(`/v1/prompts/${promptId}@2/completions`, { variables: { name: 'Bo' } });
      assert.equal(v2.status, 200);
      assert.deepEqual(gw.fake.requests[before + 1]!.body.messages, [{ role: 'user', content: 'Hello there Bo' }]);

      await gw.app.services.requestLogs.flush();
      await assertEndpointRolledUp(gw.app.services.db, 'prompts.completions', 'prompt completions');
      const logs = await gw.app.http.get(`/v1/logs?prompt_id=${promptId}`).set(admin());
      assert.equal(logs.status, 200, JSON.stringify(logs.body));
      const rows = logs.body.data as Array<Record<string, unknown>>;
      assert.equal(rows.length, 2);
      const production = rows.find((row) => row.prompt_label === 'production')!;
      assert.deepEqual([production.endpoint, production.prompt_id, production.prompt_version], ['prompts.completions', promptId, 1]);
      const second = rows.find((row) => row.prompt_version === 2)!;
      assert.equal(second.prompt_label, null);
      // The `_prompt` metadata key means the same column.
      const byMetadata = await gw.app.http.get(`/v1/logs?metadata=_prompt=${promptId}`).set(admin());
      assert.equal(byMetadata.body.data.length, 2);
      const byVersion = await gw.app.http.get(`/v1/logs?prompt_id=${promptId}&prompt_version=1`).set(admin());
      assert.deepEqual(byVersion.body.data.map((row: { id: string }) => row.id), [production.id]);
      const byLabel = await gw.app.http.get('/v1/logs?prompt_label=production').set(admin());
      assert.deepEqual(byLabel.body.data.map((row: { id: string }) => row.id), [production.id]);
      const byEndpoint = await gw.app.http.get('/v1/logs?endpoint=prompts.completions').set(admin());
      assert.ok(byEndpoint.body.data.length >= 2);

      // Analytics group by version and label, and the rollups keep both.
      const groups = await gw.app.http.get(`/v1/analytics/groups/prompt_version?prompt_id=${promptId}`).set(admin());
      assert.equal(groups.status, 200, JSON.stringify(groups.body));
      assert.deepEqual(groups.body.data.map((g: { key: string; requests: number }) => [g.key, g.requests]).sort(), [['1', 1], ['2', 1]]);
      const labels = await gw.app.http.get(`/v1/analytics/groups/prompt_label?metadata=_prompt=${promptId}`).set(admin());
      assert.deepEqual(labels.body.data.map((g: { key: string | null; requests: number }) => [g.key, g.requests]).sort(), [['production', 1], [null, 1]].sort());
      const summary = await gw.app.http.get(`/v1/analytics/summary?prompt_id=${promptId}&prompt_label=production`).set(admin());
      assert.equal(summary.body.requests, 1);
      const rolled = await gw.app.services.db('analytics_rollups').where({ dimension_set: 'prompt_version', prompt_id: promptId, workspace_id: ALL_WORKSPACES }).select('prompt_version', 'prompt_label', 'requests');
      assert.deepEqual(
        rolled.filter((r: { prompt_version: number }) => Number(r.prompt_version) === 1).map((r: { prompt_label: string }) => r.prompt_label),
        ['production', 'production', 'production', 'production'],
        'one all-workspaces row per grain (quarter hour, hour, day, week)',
      );
    });

    test('streaming: chunks pass through and the log records the stream with its prompt version', async () => {
      const before = gw.logs.length;
      const response = await post(`/v1/prompts/${promptId}/completions`, { variables: { name: 'Cy' }, stream: true, stream_options: { include_usage: true } });
      assert.equal(response.status, 200);
      assert.match(String(response.headers['content-type']), /text\/event-stream/);
      const events = response.text.split('\n\n').filter((e) => e.startsWith('data: '));
      assert.equal(events.at(-1), 'data: [DONE]');
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)));
      assert.ok(chunks.every((chunk) => chunk.object === 'chat.completion.chunk'));
      assert.ok(chunks.some((chunk) => chunk.usage));
      for (let i = 0; i < 200 && gw.logs.length <= before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const entry = gw.logs[before]!;
      assert.deepEqual([entry.endpoint, entry.stream, entry.prompt], ['prompts.completions', true, { id: promptId, version: 1, label: null }]);
      assert.ok(entry.total_tokens > 0);
    });

    test('a prompt naming its saved provider in the legacy virtual key form (no @) runs on it', async () => {
      const prompt = await post('/v1/prompts', { name: 'pc-legacy', virtual_key: 'pc-openai', model: 'gpt-4o-mini', string: 'Legacy {{name}}' });
      assert.equal(prompt.status, 201, JSON.stringify(prompt.body));
      const before = gw.fake.requests.length;
      const answer = await post(`/v1/prompts/${prompt.body.id}/completions`, { variables: { name: 'Cy' } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(gw.fake.requests[before]!.headers.authorization, `Bearer ${PROVIDER_KEY}`);
      assert.deepEqual(gw.fake.requests[before]!.body.messages, [{ role: 'user', content: 'Legacy Cy' }]);
    });

    test('a virtual_key naming no saved provider the workspace may use is refused at save and at update, with the code the call answers', async () => {
      for (const virtualKey of ['@pc-nobody', 'pc-nobody']) {
        const refused = await post('/v1/prompts', { name: 'pc-dangling', virtual_key: virtualKey, model: 'gpt-4o-mini', string: 'Hi' });
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.deepEqual([refused.body.error.code, refused.body.error.param], ['provider_not_found', 'virtual_key'], virtualKey);
      }
      const call = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-provider': '@pc-nobody' });
      assert.deepEqual([call.status, call.body.error.code], [400, 'provider_not_found'], 'the call naming the same provider answers the same');

      // A provider of another workspace is not one this prompt's workspace may use; in its own workspace it is.
      const other = await gw.app.services.store.workspaces.create({ organisation_id: gw.app.boot.organisationId, name: 'pc-other', slug: 'pc-other' }, new Date().toISOString());
      const elsewhere = await post('/v1/providers', { name: 'pc-elsewhere', workspace_id: other.id, ai_provider_id: 'openai', key: PROVIDER_KEY });
      assert.equal(elsewhere.status, 201, JSON.stringify(elsewhere.body));
      const crossed = await post('/v1/prompts', { name: 'pc-crossed', virtual_key: '@pc-elsewhere', model: 'gpt-4o-mini', string: 'Hi' });
      assert.deepEqual([crossed.status, crossed.body.error?.code], [400, 'provider_not_found'], JSON.stringify(crossed.body));
      const own = await post('/v1/prompts', { name: 'pc-own', workspace_id: other.id, virtual_key: '@pc-elsewhere', model: 'gpt-4o-mini', string: 'Hi' });
      assert.equal(own.status, 201, JSON.stringify(own.body));

      const updated = await gw.app.http.put(`/v1/prompts/${promptId}`).set(admin()).send({ patch: true, virtual_key: '@pc-nobody' });
      assert.equal(updated.status, 400, JSON.stringify(updated.body));
      assert.deepEqual([updated.body.error.code, updated.body.error.param], ['provider_not_found', 'virtual_key']);
      const latest = await gw.app.http.get(`/v1/prompts/${promptId}@latest`).set(admin());
      assert.equal(latest.body.virtual_key, '@pc-openai', 'the refused update added no version');
    });

    test('headers that select a provider win over the saved one; with neither, 400', async () => {
      const before = gw.fake.requests.length;
      const inline = await post(`/v1/prompts/${promptId}/completions`, { variables: { name: 'Di' } }, { 'x-gw-provider': 'openai', authorization: 'Bearer sk-inline-key-0000000000' });
      assert.equal(inline.status, 200, JSON.stringify(inline.body));
      assert.equal(gw.fake.requests[before]!.headers.authorization, 'Bearer sk-inline-key-0000000000');

      const bare = await post('/v1/prompts', { name: 'pc-bare', model: 'gpt-4o', string: 'x' });
      const refused = await post(`/v1/prompts/${bare.body.id}/completions`, { variables: {} });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.param, 'x-gw-provider');
      const missing = await post(`/v1/prompts/${promptId}/completions`, { variables: {} });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'variables.name');
    });

    test('the chat pipeline\'s cache applies to prompt completions', async () => {
      const config = await post('/v1/configs', { name: 'pc-cache', config: { provider: '@pc-openai', cache: { mode: 'simple', max_age: 60 } } });
      assert.equal(config.status, 201, JSON.stringify(config.body));
      const headers = { 'x-gw-config': 'pc-cache' };
      const first = await post(`/v1/prompts/${promptId}/completions`, { variables: { name: 'Ed' } }, headers);
      const second = await post(`/v1/prompts/${promptId}/completions`, { variables: { name: 'Ed' } }, headers);
      assert.deepEqual([first.headers['x-gw-cache-status'], second.headers['x-gw-cache-status']], ['MISS', 'HIT']);
    });

    test('the hot path (no openapi-backend routing) answers as the general route does', async () => {
      // A trailing slash takes the general route (server/hot-operations.ts matches exact paths).
      const cases: Array<[string, unknown, number]> = [
        [`${promptId}@production`, { variables: { name: 'Hot' } }, 200],
        [`${promptId}`, { variables: {} }, 400],
        ['no-such-prompt', { variables: {} }, 404],
        ['x'.repeat(300), { variables: {} }, 400],
        [encodeURIComponent(`${promptId}@1`), { variables: { name: 'Enc' }, temperature: 7 }, 400],
        [encodeURIComponent(`${promptId}@1`), { variables: { name: 'Enc' } }, 200],
      ];
      for (const [address, body, status] of cases) {
        const hot = await post(`/v1/prompts/${address}/completions`, body);
        const general = await post(`/v1/prompts/${address}/completions/`, body);
        assert.equal(hot.status, status, `${address}: ${JSON.stringify(hot.body)}`);
        assert.equal(general.status, status, `${address} (general route): ${JSON.stringify(general.body)}`);
        if (status !== 200) assert.deepEqual({ ...hot.body.error, message: undefined }, { ...general.body.error, message: undefined });
        else assert.equal(hot.body.choices[0].message.role, general.body.choices[0].message.role);
      }
    });
  });
}
