/**
 * The Responses API through gw with the official `openai` client over a fake OpenAI chat upstream:
 * gw translates each call to a chat completion (the upstream sees /chat/completions only), runs it
 * through the chat pipeline (logged with usage and cost, endpoint `responses`), and translates the
 * answer and the stream back. Stored responses: retrieve, delete, input_items, previous_response_id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { responseSchemaErrors } from './response-schema.js';

const weather = { type: 'function' as const, name: 'get_weather', description: 'The weather', parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: false };
const USAGE = { input_tokens: 11, input_tokens_details: { cached_tokens: 0 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 };

for (const engine of fullEngines()) {
  describe(`Responses API over an OpenAI chat upstream (${engine.name})`, () => {
    let gw: GatewayApp;
    let client: OpenAI;
    const upstream = () => gw.fake.requests.at(-1)!;
    before(async () => {
      gw = await startGatewayApp({ engine });
      client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
    });
    after(() => gw.close());

    it('answers mock_response by itself, as chat does: no provider key, no upstream call', async () => {
      const calls = gw.fake.requests.length;
      const keyless = await gw.app.http
        .post('/v1/responses')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai' })
        .send({ model: 'gpt-4o-mini', input: 'Hello', mock_response: 'Hi from gw' });
      assert.equal(keyless.status, 200, JSON.stringify(keyless.body));
      assert.equal(keyless.body.object, 'response');
      assert.equal(keyless.body.output[0].content[0].text, 'Hi from gw');
      assert.equal(gw.fake.requests.length, calls);
    });

    it('answers a text input with instructions as chat, usage mapped, stored and logged with cost', async () => {
      const before = gw.logs.length;
      const { data: response, response: raw } = await client.responses
        .create({ model: 'gpt-4o', input: 'ping', instructions: 'Be brief.', max_output_tokens: 50, temperature: 0.2, top_p: 0.9, user: 'u-1', metadata: { team: 'a' }, reasoning: { effort: 'low' } })
        .withResponse();
      assert.equal(response.object, 'response');
      assert.match(response.id, /^resp_/);
      assert.equal(response.status, 'completed');
      assert.equal(response.output_text, 'You said: ping');
      assert.deepEqual(response.usage, USAGE);
      assert.deepEqual([response.instructions, response.max_output_tokens, response.temperature, response.top_p, response.user], ['Be brief.', 50, 0.2, 0.9, 'u-1']);
      assert.deepEqual(response.metadata, { team: 'a' });
      assert.equal(raw.headers.get('x-gw-provider'), 'openai');
      const sent = upstream();
      assert.equal(sent.path, '/v1/chat/completions');
      assert.deepEqual(sent.body.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'ping' }]);
      assert.deepEqual([sent.body.max_completion_tokens, sent.body.temperature, sent.body.top_p, sent.body.user, sent.body.reasoning_effort], [50, 0.2, 0.9, 'u-1', 'low']);
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.equal(entry.endpoint, 'responses');
      assert.deepEqual([entry.prompt_tokens, entry.completion_tokens, entry.total_tokens], [FAKE_USAGE.prompt_tokens, FAKE_USAGE.completion_tokens, FAKE_USAGE.total_tokens]);
      assert.ok(entry.cost > 0, `cost ${entry.cost}`);
      assert.equal(entry.trace_id, raw.headers.get('x-gw-trace-id'));

      const stored = await client.responses.retrieve(response.id);
      assert.deepEqual(stored.output, response.output);
      assert.equal(stored.output_text, 'You said: ping');
      const items = await client.responses.inputItems.list(response.id);
      assert.equal(items.data.length, 1);
      const [item] = items.data as Array<{ type: string; role: string; content: unknown; id: string }>;
      assert.deepEqual([item!.type, item!.role, item!.content], ['message', 'user', [{ type: 'input_text', text: 'ping' }]]);
      assert.match(item!.id, /^msg_/);
    });

    it("passes OpenAI's newer reasoning levels (none, xhigh) on as they are", async () => {
      for (const effort of ['none', 'xhigh'] as const) {
        const response = await client.responses.create({ model: 'gpt-5', input: 'think', reasoning: { effort } });
        assert.equal(response.reasoning?.effort, effort);
        assert.equal(upstream().body.reasoning_effort, effort);
      }
    });

    it('sends message items with input_text and input_image parts as chat content parts', async () => {
      await client.responses.create({
        model: 'gpt-4o',
        input: [
          { role: 'developer', content: 'Describe images.' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'low' }] },
        ],
      });
      assert.deepEqual(upstream().body.messages, [
        { role: 'developer', content: 'Describe images.' },
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } }] },
      ]);
    });

    it('round-trips a function tool: function_call item, then function_call_output continued by previous_response_id', async () => {
      const first = await client.responses.create({ model: 'gpt-4o', input: 'Weather in Paris?', tools: [weather], tool_choice: { type: 'function', name: 'get_weather' } });
      assert.deepEqual(upstream().body.tools, [{ type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: weather.parameters, strict: false } }]);
      assert.deepEqual(upstream().body.tool_choice, { type: 'function', function: { name: 'get_weather' } });
      const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      assert.deepEqual([call.call_id, call.name, JSON.parse(call.arguments)], ['call_fake_1', 'get_weather', { location: 'Paris' }]);
      assert.match(call.id!, /^fc_/);

      const second = await client.responses.create({
        model: 'gpt-4o',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '18C and sunny' }],
        tools: [weather],
      });
      assert.equal(second.previous_response_id, first.id);
      assert.deepEqual(upstream().body.messages, [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_fake_1', type: 'function', function: { name: 'get_weather', arguments: call.arguments } }] },
        { role: 'tool', tool_call_id: 'call_fake_1', content: '18C and sunny' },
      ]);
      assert.equal(second.output_text, 'You said: Weather in Paris?');

      // The same turn with the items sent whole instead of by reference.
      await client.responses.create({
        model: 'gpt-4o',
        input: [{ role: 'user', content: 'Weather in Paris?' }, { type: 'function_call', call_id: 'call_x', name: 'get_weather', arguments: '{}' }, { type: 'function_call_output', call_id: 'call_x', output: 'rain' }],
        tools: [weather],
      });
      assert.deepEqual((upstream().body.messages as unknown[]).slice(1), [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_x', content: 'rain' },
      ]);
    });

    it('continues a text conversation by previous_response_id, without the earlier instructions', async () => {
      const first = await client.responses.create({ model: 'gpt-4o', input: 'My name is Ada.', instructions: 'Old instructions' });
      await client.responses.create({ model: 'gpt-4o', input: 'What is my name?', previous_response_id: first.id });
      assert.deepEqual(upstream().body.messages, [
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'You said: My name is Ada.' },
        { role: 'user', content: 'What is my name?' },
      ]);
    });

    it('sends text.format as the chat response_format (json_schema and json_object)', async () => {
      const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
      gw.fake.next({ kind: 'reply', content: '{"answer":"42"}' });
      const response = await client.responses.create({ model: 'gpt-4o', input: 'Answer?', text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } } });
      assert.deepEqual(upstream().body.response_format, { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } });
      assert.deepEqual(JSON.parse(response.output_text), { answer: '42' });
      assert.deepEqual(response.text?.format, { type: 'json_schema', name: 'answer', schema, strict: true });
      await client.responses.create({ model: 'gpt-4o', input: 'JSON please', text: { format: { type: 'json_object' } } });
      assert.deepEqual(upstream().body.response_format, { type: 'json_object' });
    });

    it('streams the Responses events in order, with sequence numbers, and stores the final response', async () => {
      const before = gw.logs.length;
      const stream = client.responses.stream({ model: 'gpt-4o', input: 'one two three' });
      const types: string[] = [];
      const sequence: number[] = [];
      let text = '';
      for await (const event of stream) {
        types.push(event.type);
        sequence.push(event.sequence_number);
        if ('response' in event) assert.equal(responseSchemaErrors(event.response), '', event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
      }
      const final = await stream.finalResponse();
      assert.equal(text, 'You said: one two three');
      assert.equal(final.output_text, 'You said: one two three');
      assert.deepEqual(final.usage, USAGE);
      assert.deepEqual(sequence, types.map((_, index) => index));
      const deltas = types.filter((type) => type === 'response.output_text.delta').length;
      assert.ok(deltas >= 3, `${deltas} deltas`);
      assert.deepEqual(
        types.filter((type) => type !== 'response.output_text.delta'),
        ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed'],
      );
      assert.equal(upstream().body.stream, true);
      const stored = await client.responses.retrieve(final.id);
      assert.equal(stored.status, 'completed');
      assert.equal(stored.output_text, 'You said: one two three');
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.deepEqual([entry.endpoint, entry.stream, entry.total_tokens], ['responses', true, FAKE_USAGE.total_tokens]);
    });

    it('streams a function call: output_item.added, arguments delta and done', async () => {
      const stream = client.responses.stream({ model: 'gpt-4o', input: 'Weather?', tools: [weather] });
      const types: string[] = [];
      let args = '';
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.function_call_arguments.delta') args += event.delta;
      }
      const final = await stream.finalResponse();
      const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
      assert.deepEqual([call.type, call.call_id, call.name, call.arguments, call.status], ['function_call', 'call_fake_1', 'get_weather', args, 'completed']);
      assert.deepEqual(JSON.parse(args), { location: 'Paris' });
      assert.deepEqual(types, [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ]);
    });

    it('ends a stream that fails midway with response.failed, then an error event the client raises', async () => {
      gw.fake.next({ kind: 'stream-error', message: 'upstream broke' });
      const stream = await client.responses.create({ model: 'gpt-4o', input: 'hi', stream: true });
      const events: Array<{ type: string; [key: string]: unknown }> = [];
      await assert.rejects(
        (async () => {
          for await (const event of stream) events.push(event as unknown as { type: string });
        })(),
        (error: unknown) => {
          assert.ok(error instanceof OpenAI.APIError, String(error));
          assert.match(error.message, /upstream broke/);
          return true;
        },
      );
      const failed = events.at(-1) as unknown as OpenAI.Responses.ResponseFailedEvent;
      assert.equal(failed.type, 'response.failed');
      assert.equal(responseSchemaErrors(failed.response), '');
      assert.equal(failed.response.status, 'failed');
      assert.match(failed.response.error!.message, /upstream broke/);
      assert.ok(events.some((event) => event.type === 'response.output_text.delta' && event.delta === 'partial'));
    });

    it('keeps nothing with store: false; delete removes a stored response', async () => {
      const unstored = await client.responses.create({ model: 'gpt-4o', input: 'forget me', store: false });
      assert.equal((unstored as { store?: boolean }).store, false);
      await assert.rejects(client.responses.retrieve(unstored.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      const kept = await client.responses.create({ model: 'gpt-4o', input: 'keep me' });
      const deleted = await gw.app.http.delete(`/v1/responses/${kept.id}`).set('x-gw-api-key', gw.app.adminKey);
      assert.deepEqual(deleted.body, { id: kept.id, object: 'response', deleted: true });
      await assert.rejects(client.responses.retrieve(kept.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      await assert.rejects(client.responses.delete(kept.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      await assert.rejects(client.responses.inputItems.list(kept.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
    });

    it('pages input_items with after, limit and order', async () => {
      const response = await client.responses.create({
        model: 'gpt-4o',
        input: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
      });
      const newest = await client.responses.inputItems.list(response.id, { limit: 2 });
      assert.deepEqual(newest.data.map((item) => (item as { content: Array<{ text: string }> }).content[0]!.text), ['three', 'two']);
      assert.equal(newest.has_more, true);
      // The client's next page asks with after = the last item's id.
      const rest = await newest.getNextPage();
      assert.deepEqual(rest.data.map((item) => (item as { content: Array<{ text: string }> }).content[0]!.text), ['one']);
      assert.equal(rest.has_more, false);
      const oldest = await client.responses.inputItems.list(response.id, { order: 'asc', limit: 1 });
      assert.deepEqual(oldest.data.map((item) => (item as { content: Array<{ text: string }> }).content[0]!.text), ['one']);
    });

    it('keeps stored responses to their workspace: another workspace cannot read, continue or delete them', async () => {
      const mine = await client.responses.create({ model: 'gpt-4o', input: 'private' });
      const workspace = await gw.app.http.post('/v1/workspaces').set('x-gw-api-key', gw.app.adminKey).send({ name: 'elsewhere' });
      assert.equal(workspace.status, 201, JSON.stringify(workspace.body));
      const key = await gw.app.http.post('/v1/api-keys/workspace/service').set('x-gw-api-key', gw.app.adminKey).send({ name: 'k', workspace_id: workspace.body.id, scopes: ['completions.write'] });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const other = new OpenAI({ apiKey: 'sk-upstream', baseURL: `${gw.app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': key.body.key, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url } });
      await assert.rejects(other.responses.retrieve(mine.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      await assert.rejects(other.responses.inputItems.list(mine.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      await assert.rejects(other.responses.delete(mine.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      await assert.rejects(other.responses.create({ model: 'gpt-4o', input: 'more', previous_response_id: mine.id }), (error: unknown) => error instanceof OpenAI.BadRequestError);
      assert.equal((await client.responses.retrieve(mine.id)).id, mine.id);
    });

    it('passes a stream on as it arrives, and a client that goes away aborts the upstream call (logged 499)', async () => {
      gw.fake.next({ kind: 'stall-stream' });
      const before = gw.logs.length;
      const abortedBefore = gw.fake.abortedByCaller;
      const controller = new AbortController();
      const response = await fetch(`${gw.app.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-upstream' },
        body: JSON.stringify({ model: 'gpt-4o', input: 'hi', stream: true }),
        signal: controller.signal,
      });
      assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(response.headers.get('x-gw-provider'), 'openai');
      const reader = response.body!.getReader();
      const first = await reader.read();
      assert.match(new TextDecoder().decode(first.value), /^event: response\.created\ndata: \{/);
      controller.abort();
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.equal(entry.status, 499);
      for (let i = 0; i < 200 && gw.fake.abortedByCaller === abortedBefore; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(gw.fake.abortedByCaller, abortedBefore + 1, 'gw closed its upstream call');
    });

    it('applies the config: its input guardrails deny with 446 before the upstream, its cache answers a repeat', async () => {
      const config = {
        provider: 'openai',
        api_key: 'sk-upstream',
        custom_host: gw.fake.url,
        cache: { mode: 'simple', max_age: 60 },
        input_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' } }], actions: { deny: true } }],
      };
      const configured = new OpenAI({ apiKey: gw.app.adminKey, baseURL: `${gw.app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-config': JSON.stringify(config) } });
      const calls = gw.fake.requests.length;
      await assert.rejects(configured.responses.create({ model: 'gpt-4o', input: 'a forbidden word' }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 446, String(error));
        return true;
      });
      assert.equal(gw.fake.requests.length, calls, 'the denied request never reached the upstream');

      const first = await configured.responses.create({ model: 'gpt-4o', input: 'cache me' }).withResponse();
      const second = await configured.responses.create({ model: 'gpt-4o', input: 'cache me' }).withResponse();
      assert.deepEqual([first.response.headers.get('x-gw-cache-status'), second.response.headers.get('x-gw-cache-status')], ['MISS', 'HIT']);
      assert.equal(gw.fake.requests.length, calls + 1, 'the repeat was answered from the cache');
      assert.equal(second.data.output_text, 'You said: cache me');
      assert.notEqual(second.data.id, first.data.id);
    });

    it('answers errors in the spec error shape: upstream failure, unknown previous_response_id, unknown tool type', async () => {
      const logged = gw.logs.length;
      gw.fake.next({ kind: 'error', status: 500, message: 'fake upstream down' });
      const down = await gw.app.http
        .post('/v1/responses')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-upstream' })
        .send({ model: 'gpt-4o', input: 'hi' });
      assert.equal(down.status, 500);
      assert.match(down.body.error.message, /fake upstream down/);
      // No field is at fault in an upstream failure: no param (the error object's fields are strings).
      assert.deepEqual(Object.keys(down.body.error).sort(), ['code', 'message', 'type']);

      await assert.rejects(client.responses.create({ model: 'gpt-4o', input: 'hi', previous_response_id: 'resp_missing' }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal((error.error as { param: string }).param, 'previous_response_id');
        return true;
      });
      const builtIn = await gw.app.http
        .post('/v1/responses')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-upstream' })
        .send({ model: 'gpt-4o', input: 'hi', tools: [{ type: 'web_browser' }] });
      assert.equal(builtIn.status, 400);
      assert.match(builtIn.body.error.param, /tools/);
      // gw has no background mode: asking for one is refused, not silently answered in the foreground.
      const background = await gw.app.http
        .post('/v1/responses')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-upstream' })
        .send({ model: 'gpt-4o', input: 'hi', background: true });
      assert.equal(background.status, 400);
      assert.match(background.body.error.param, /background/);
      // Refusals before the pipeline ran are logged too, under the responses endpoint.
      const refused = (await logsSettled(gw, logged + 4)).slice(logged);
      assert.deepEqual(
        refused.map((entry) => [entry.endpoint, entry.status]),
        [
          ['responses', 500],
          ['responses', 400],
          ['responses', 400],
          ['responses', 400],
        ],
      );
      assert.equal(refused[1]!.error?.code, 'previous_response_not_found');
      const stream = await gw.app.http
        .post('/v1/responses')
        .set({ 'x-gw-api-key': 'not-a-key', 'x-gw-provider': 'openai', authorization: 'Bearer sk-upstream' })
        .send({ model: 'gpt-4o', input: 'hi', stream: true });
      assert.equal(stream.status, 401);
      assert.equal(typeof stream.body.error.message, 'string');
    });
  });
}
