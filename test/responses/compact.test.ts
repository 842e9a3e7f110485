/**
 * POST /v1/responses/compact over an OpenAI-type and an Anthropic-type fake: gw asks the model for
 * a summary of the conversation (a transcript), answers the Open Responses CompactResource (the
 * user's messages, then a compaction item), logs it with tokens and cost, and reads its compaction
 * item back as the summary when the output starts a new response. A request without a model is 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeOpenAi } from '../helpers/fake-openai.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { openResponsesCompactionErrors, openResponsesResponseErrors } from './open-responses-schema.js';

type Json = Record<string, unknown>;
const SUMMARY = 'Launch on Tuesday; notify support first.';

const CONVERSATION = [
  { type: 'message', role: 'user', content: 'We agreed to launch on Tuesday and notify support first.' },
  { type: 'message', role: 'assistant', content: 'Understood: Tuesday, support first.' },
];

const UPSTREAMS = [
  {
    name: 'an OpenAI-type provider',
    provider: 'openai',
    model: 'gpt-4o',
    async start() {
      const fake = await startFakeOpenAi();
      fake.script(() => ({ kind: 'reply', content: SUMMARY, toolCall: null }));
      return { url: fake.url, last: () => fake.requests.at(-1)!.body as Json, close: () => fake.close() };
    },
    /** The model's instructions and the text it was shown. */
    seen: (body: Json) => JSON.stringify(body.messages),
  },
  {
    name: 'an Anthropic-type provider',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    async start() {
      const reply: FakeAnthropicReply = { kind: 'message', message: { content: [{ type: 'text', text: SUMMARY }], stop_reason: 'end_turn', usage: { input_tokens: 80, output_tokens: 12 } } };
      const fake = await startFakeAnthropic(() => reply);
      return { url: fake.url, last: () => fake.received.at(-1)!.body as Json, close: () => fake.close() };
    },
    seen: (body: Json) => JSON.stringify([body.system, body.messages]),
  },
];

for (const engine of fullEngines())
  for (const upstream of UPSTREAMS)
    describe(`Responses compaction over ${upstream.name} (${engine.name})`, () => {
      let app: TestApp;
      let fake: Awaited<ReturnType<(typeof upstream)['start']>>;
      const logs: RequestLogEntry[] = [];
      const post = (path: string, body: Json) =>
        app.http.post(path).set({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': upstream.provider, 'x-gw-custom-host': fake.url, authorization: 'Bearer sk-upstream' }).send(body);

      before(async () => {
        fake = await upstream.start();
        app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
        recordLogsInto(app, logs);
      });
      after(async () => {
        await app?.close();
        await fake?.close();
      });

      it('compacts a conversation into its user messages and a compaction item, logged with tokens and cost', async () => {
        const before = logs.length;
        const answer = await post('/v1/responses/compact', { model: upstream.model, prompt_cache_key: 'compact-test', input: CONVERSATION });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(openResponsesCompactionErrors(answer.body), '', JSON.stringify(answer.body));
        assert.equal(answer.body.object, 'response.compaction');
        const output = answer.body.output as Array<{ type: string; role?: string; encrypted_content?: string }>;
        assert.deepEqual(output.map((item) => item.role ?? item.type), ['user', 'compaction']);
        assert.ok(answer.body.usage.total_tokens > 0);
        // The model was shown the whole conversation as a transcript, with gw's instruction.
        const seen = upstream.seen(fake.last());
        assert.match(seen, /Summarise the conversation/);
        assert.match(seen, /Understood: Tuesday, support first\./);
        for (let i = 0; i < 200 && logs.length === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        const entry = logs.at(-1)!;
        assert.equal(entry.endpoint, 'responses');
        assert.ok(entry.total_tokens > 0 && entry.cost > 0, `tokens ${entry.total_tokens}, cost ${entry.cost}`);

        // The compacted output starts a new chain: the summary reaches the model as context.
        const next = await post('/v1/responses', { model: upstream.model, input: [...output, { type: 'message', role: 'user', content: 'When do we launch?' }] });
        assert.equal(next.status, 200, JSON.stringify(next.body));
        assert.equal(openResponsesResponseErrors(next.body), '');
        assert.match(upstream.seen(fake.last()), new RegExp(`Summary of the conversation so far:\\\\n${SUMMARY}`));
      });

      it('refuses a compaction without a model, and one with nothing to compact', async () => {
        const noModel = await post('/v1/responses/compact', { input: CONVERSATION });
        assert.equal(noModel.status, 400);
        assert.match(noModel.body.error.param ?? noModel.body.error.message, /model/);
        const empty = await post('/v1/responses/compact', { model: upstream.model });
        assert.equal(empty.status, 400);
        assert.equal(empty.body.error.param, 'input');
      });
    });
