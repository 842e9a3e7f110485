/**
 * Routing end to end: the official `openai` client calls gw with inline configs whose targets are
 * fake upstreams on 127.0.0.1 that fail on purpose. Runs on SQLite+memory and Postgres+Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { fullEngines } from '../helpers/engines.js';
import { refusedUrl, startFaultUpstream, type Behaviour, type FaultUpstream } from '../helpers/fault-upstream.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const MESSAGES = [{ role: 'user' as const, content: 'hi' }];

for (const engine of fullEngines()) {
  describe(`routing through gw (${engine.name})`, () => {
    let app: TestApp;
    const upstreams: FaultUpstream[] = [];
    before(async () => {
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    });
    after(async () => {
      await app?.close();
      await Promise.all(upstreams.map((upstream) => upstream.close()));
    });

    async function upstream(script: Behaviour[]) {
      const started = await startFaultUpstream(script);
      upstreams.push(started);
      return started;
    }

    function client(config: ConfigNode, headers: Record<string, string> = {}) {
      return new OpenAI({
        baseURL: `${app.url}/v1`,
        apiKey: 'unused',
        maxRetries: 0,
        defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': JSON.stringify(config), ...headers },
      });
    }

    async function create(config: ConfigNode, headers: Record<string, string> = {}) {
      const { data, response } = await client(config, headers).chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES }).withResponse();
      return { data, headers: response.headers };
    }

    test('fallback past a 5xx and a refused connection; headers name the serving target', async () => {
      const failing = await upstream([{ kind: 'status', status: 503 }]);
      const refused = await refusedUrl();
      const good = await upstream([{ kind: 'ok', content: 'from the third' }]);
      const { data, headers } = await create({
        strategy: { mode: 'fallback' },
        provider: 'openai',
        api_key: 'sk-test',
        targets: [{ custom_host: failing.url }, { custom_host: refused }, { strategy: { mode: 'single' }, targets: [{ custom_host: good.url }] }],
      });
      assert.equal(data.choices[0]!.message.content, 'from the third');
      assert.equal(headers.get('x-gw-last-used-option-index'), '2.0');
      assert.equal(headers.get('x-gw-retry-attempt-count'), '0');
      assert.equal(headers.get('x-gw-cache-status'), 'DISABLED');
      assert.equal(good.received[0]!.headers.authorization, 'Bearer sk-test', 'credentials inherited from the root');
    });

    test('429 with Retry-After is retried (use_retry_after_header) and the retry count is reported', async () => {
      const limited = await upstream([{ kind: 'status', status: 429, headers: { 'retry-after-ms': '5', 'retry-after': '0' } }, { kind: 'ok' }]);
      const { headers } = await create({ provider: 'openai', api_key: 'sk', custom_host: limited.url, retry: { attempts: 3, use_retry_after_header: true } });
      assert.equal(headers.get('x-gw-retry-attempt-count'), '1');
      assert.equal(limited.received.length, 2);
    });

    test('without retries a 429 keeps its status; with on_status_codes fallback stops on other statuses', async () => {
      const limited = await upstream([{ kind: 'status', status: 429, headers: { 'retry-after': '1' } }]);
      await assert.rejects(create({ provider: 'openai', api_key: 'sk', custom_host: limited.url }), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 429);
      const bad = await upstream([{ kind: 'status', status: 400 }]);
      const good = await upstream([{ kind: 'ok' }]);
      await assert.rejects(
        create({ strategy: { mode: 'fallback', on_status_codes: [429] }, provider: 'openai', api_key: 'sk', targets: [{ custom_host: bad.url }, { custom_host: good.url }] }),
        (error: InstanceType<typeof OpenAI.APIError>) => error.status === 400,
      );
      assert.equal(good.received.length, 0);
    });

    test('a hang before headers times out (request_timeout) and fallback moves on; alone it answers 408', async () => {
      const hang = await upstream([{ kind: 'hang' }]);
      const good = await upstream([{ kind: 'ok', content: 'after timeout' }]);
      const { data, headers } = await create({
        strategy: { mode: 'fallback' },
        provider: 'openai',
        api_key: 'sk',
        targets: [{ custom_host: hang.url, request_timeout: 100 }, { custom_host: good.url }],
      });
      assert.equal(data.choices[0]!.message.content, 'after timeout');
      assert.equal(headers.get('x-gw-last-used-option-index'), '1');
      await assert.rejects(
        create({ provider: 'openai', api_key: 'sk', custom_host: hang.url, request_timeout: 60_000 }, { 'x-gw-request-timeout': '150' }),
        (error: InstanceType<typeof OpenAI.APIError>) => error.status === 408,
      );
    });

    test('loadbalance and conditional pick by weight and by metadata', async () => {
      const a = await upstream([{ kind: 'ok', content: 'a' }]);
      const b = await upstream([{ kind: 'ok', content: 'b' }]);
      const weighted = await create({ strategy: { mode: 'loadbalance' }, provider: 'openai', api_key: 'sk', targets: [{ custom_host: a.url, weight: 0 }, { custom_host: b.url, weight: 1 }] });
      assert.equal(weighted.data.choices[0]!.message.content, 'b');
      const conditional: ConfigNode = {
        strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'pro' } }, then: 'pro' }], default: 'free' },
        provider: 'openai',
        api_key: 'sk',
        targets: [
          { name: 'free', custom_host: a.url },
          { name: 'pro', custom_host: b.url, override_params: { temperature: 0 } },
        ],
      };
      const pro = await create(conditional, { 'x-gw-metadata': JSON.stringify({ tier: 'pro' }) });
      assert.equal(pro.headers.get('x-gw-last-used-option-index'), '1');
      assert.equal(b.received.at(-1)!.body.temperature, 0, 'override_params reach the upstream');
      const free = await create(conditional, { 'x-gw-metadata': JSON.stringify({ tier: 'basic' }) });
      assert.equal(free.headers.get('x-gw-last-used-option-index'), '0');
    });

    test('a bad inline config is refused with 400 naming the bad key', async () => {
      const response = await app.http
        .post('/v1/chat/completions')
        .set('x-gw-api-key', ADMIN_KEY)
        .set('x-gw-config', JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', retry: { attempts: 9 } }] }))
        .send({ model: 'gpt-4o-mini', messages: MESSAGES });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.param, 'config.targets[0].retry.attempts');
    });

    test('the log entry records the route taken and the retries', async () => {
      const failing = await upstream([{ kind: 'status', status: 500 }]);
      const good = await upstream([{ kind: 'status', status: 502 }, { kind: 'ok' }]);
      const entries: Array<{ route: unknown; retry_count: number }> = [];
      const original = app.services.requestLogs.record.bind(app.services.requestLogs);
      app.services.requestLogs.record = (entry) => {
        entries.push(entry);
        original(entry);
      };
      try {
        await create({ strategy: { mode: 'fallback' }, provider: 'openai', api_key: 'sk', retry: { attempts: 1 }, targets: [{ custom_host: failing.url, retry: { attempts: 0 } }, { custom_host: good.url }] });
      } finally {
        app.services.requestLogs.record = original;
      }
      const entry = entries.at(-1)!;
      assert.equal(entry.retry_count, 1);
      assert.deepEqual(
        (entry.route as Array<{ path: string; status: number | null }>).map((step) => [step.path, step.status]),
        [['0', 500], ['1', 200]],
      );
    });
  });
}
