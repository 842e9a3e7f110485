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

    test('the wait asked by the upstream (retry-after-ms, Retry-After) is read from its answer: longer than the budget ends the retries', async () => {
      // Were the headers lost on the way, the backoff (at most 250 ms here) would fit the budget and a second call would follow.
      for (const asked of [{ 'retry-after-ms': '60000' }, { 'retry-after': '60' }] as Array<Record<string, string>>) {
        const limited = await upstream([{ kind: 'status', status: 429, headers: asked }, { kind: 'ok' }]);
        await assert.rejects(
          create({ provider: 'openai', api_key: 'sk', custom_host: limited.url, retry: { attempts: 3, use_retry_after_header: true, max_retry_wait_ms: 1000 } }),
          (error: InstanceType<typeof OpenAI.APIError>) => error.status === 429,
        );
        assert.equal(limited.received.length, 1, JSON.stringify(asked));
      }
    });

    test('what a child inherits reaches the wire: credentials, override_params (merged), forward_headers, retry, request_timeout, cache', { timeout: 60_000 }, async () => {
      const failing = await upstream([{ kind: 'status', status: 503 }]);
      const hang = await upstream([{ kind: 'hang' }]);
      const good = await upstream([{ kind: 'ok', content: 'nested child' }]);
      const config: ConfigNode = {
        strategy: { mode: 'fallback' },
        provider: 'openai',
        api_key: 'sk-root',
        forward_headers: ['x-team'],
        override_params: { temperature: 0.3, seed: 7 },
        retry: { attempts: 1 },
        request_timeout: 100,
        cache: { mode: 'simple', max_age: 60 },
        targets: [
          { custom_host: failing.url },
          { custom_host: hang.url },
          // Its own timeout, so a slow machine cannot fail the serving leaf; the hang above has only the inherited 100 ms.
          { strategy: { mode: 'single' }, override_params: { temperature: 0.9 }, request_timeout: 30_000, targets: [{ custom_host: good.url }] },
        ],
      };
      const first = await create(config, { 'x-team': 'blue' });
      assert.equal(first.data.choices[0]!.message.content, 'nested child');
      assert.equal(first.headers.get('x-gw-last-used-option-index'), '2.0');
      assert.equal(failing.received.length, 2, 'the inherited retry made one retry');
      assert.equal(hang.received.length, 1, 'the inherited request_timeout ended the hang and fallback moved on');
      const sent = good.received[0]!;
      assert.equal(sent.headers.authorization, 'Bearer sk-root');
      assert.equal(sent.headers['x-team'], 'blue');
      assert.equal(sent.body.temperature, 0.9);
      assert.equal(sent.body.seed, 7);
      const second = await create(config, { 'x-team': 'blue' });
      assert.equal(second.headers.get('x-gw-cache-status'), 'HIT', 'the inherited cache answered at the nested leaf');
      assert.equal(good.received.length, 1);
    });

    test('when every target fails, the error answer still names the last target tried and its retries', async () => {
      const first = await upstream([{ kind: 'status', status: 503 }]);
      const last = await upstream([{ kind: 'status', status: 500, message: 'last one down' }]);
      await assert.rejects(
        create({ strategy: { mode: 'fallback' }, provider: 'openai', api_key: 'sk', retry: { attempts: 2 }, targets: [{ custom_host: first.url }, { custom_host: last.url }] }),
        (error: InstanceType<typeof OpenAI.APIError>) => {
          assert.equal(error.status, 500);
          assert.match(error.message, /last one down/);
          assert.equal(error.headers?.get('x-gw-last-used-option-index'), '1');
          assert.equal(error.headers?.get('x-gw-retry-attempt-count'), '2');
          assert.equal(error.headers?.get('x-gw-cache-status'), 'DISABLED');
          return true;
        },
      );
      assert.equal(first.received.length, 3);
      assert.equal(last.received.length, 3);
    });

    test("a refused connection is retried through gw's own transport, then answers 502", async () => {
      const refused = await refusedUrl();
      await assert.rejects(create({ provider: 'openai', api_key: 'sk', custom_host: refused, retry: { attempts: 2 } }), (error: InstanceType<typeof OpenAI.APIError>) => {
        assert.equal(error.status, 502);
        assert.equal(error.headers?.get('x-gw-retry-attempt-count'), '2');
        return true;
      });
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
