/**
 * The A2A door's bounds, against agents that misbehave on purpose (hand-written, since the SDK's
 * agents behave): an answer over GW_MAX_UPSTREAM_ANSWER_BYTES, an agent that never answers, a
 * stream that goes silent after its first event, a stream that grows past the size bound, and an
 * agent nobody listens for. Each ends in a JSON-RPC error naming what happened, and a log row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startHandWrittenAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { a2aRows, saveIntegration, workspaceKey } from './a2a-fixtures.js';

const MAX_BYTES = 4096;
const TASK = { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'working' } };

function startMisbehavingAgent(): ReturnType<typeof startHandWrittenAgent> {
  return startHandWrittenAgent((_req, body, res) => {
    const request = JSON.parse(body) as { id: unknown; params: { message: { parts: Array<{ text: string }> } } };
    const text = request.params.message.parts[0]!.text;
    const event = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n\n`;
    if (text === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { ...TASK, metadata: { padding: 'x'.repeat(MAX_BYTES * 2) } } }));
    } else if (text === 'hang') {
      // never answers
    } else if (text === 'silent-stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event(TASK));
    } else if (text === 'growing-stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event(TASK));
      const update = event({ kind: 'status-update', taskId: 't-1', contextId: 'c-1', status: { state: 'working' }, final: false, metadata: { padding: 'y'.repeat(1024) } });
      // After the first event has gone out on its own: the bound then cuts the stream mid-way.
      setTimeout(() => {
        for (let i = 0; i < 8; i++) res.write(update);
      }, 50);
    }
  });
}

const send = (method: string, text: string) => ({ jsonrpc: '2.0', id: 42, method, params: { message: { kind: 'message', messageId: `m-${text}`, role: 'user', parts: [{ kind: 'text', text }] } } });

/** The data: payloads of an SSE body. */
const events = (body: string) => body.split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => JSON.parse(block.slice(6)) as { result?: { id: string }; error?: { data: { type?: string; code?: string } } });

for (const engine of fullEngines()) {
  describe(`the A2A door's bounds (${engine.name})`, () => {
    let app: TestApp;
    let agent: Awaited<ReturnType<typeof startMisbehavingAgent>>;
    let key: string;

    before(async () => {
      agent = await startMisbehavingAgent();
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_MAX_UPSTREAM_ANSWER_BYTES: String(MAX_BYTES), REQUEST_TIMEOUT: '500' } });
      for (const [slug, url] of [['rough', agent.url], ['gone', 'http://127.0.0.1:9']] as const) {
        await saveIntegration(app, slug, url, { name: slug, url: `${url}/rpc`, protocolVersion: '0.3.0', version: '1', skills: [], capabilities: { streaming: true } });
      }
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      await agent.close();
    });

    const post = (slug: string, body: unknown) => app.http.post(`/a2a/${slug}/`).set({ 'x-gw-api-key': key }).send(body as object);

    test('an answer over GW_MAX_UPSTREAM_ANSWER_BYTES is refused, not read', async () => {
      const answer = await post('rough', send('message/send', 'huge'));
      assert.equal(answer.status, 502, JSON.stringify(answer.body));
      assert.equal(answer.body.id, 42);
      assert.equal(answer.body.error.code, -32603);
      assert.equal(answer.body.error.data.code, 'upstream_answer_too_large');
    });

    test('an agent that does not answer within REQUEST_TIMEOUT gets a timeout error', async () => {
      const answer = await post('rough', send('message/send', 'hang'));
      assert.equal(answer.status, 504, JSON.stringify(answer.body));
      assert.equal(answer.body.error.data.type, 'timeout_error');
      assert.match(answer.body.error.message, /did not answer within 500 ms/);
    });

    test('a stream silent for longer than REQUEST_TIMEOUT ends with an error event after what arrived', async () => {
      const answer = await post('rough', send('message/stream', 'silent-stream'));
      assert.equal(answer.status, 200);
      const seen = events(answer.text);
      assert.equal(seen.length, 2);
      assert.equal(seen[0]!.result?.id, 't-1');
      assert.equal(seen[1]!.error?.data.type, 'timeout_error');
    });

    test('a stream growing past GW_MAX_UPSTREAM_ANSWER_BYTES ends with an error event', async () => {
      const answer = await post('rough', send('message/stream', 'growing-stream'));
      const seen = events(answer.text);
      assert.ok(seen.length < 9, `${seen.length} events: the stream was cut`);
      assert.equal(seen.at(-1)!.error?.data.code, 'upstream_answer_too_large');
    });

    test('an agent nobody listens for is a 502 naming it; every one of these calls is logged', async () => {
      const answer = await post('gone', send('message/send', 'anyone?'));
      assert.equal(answer.status, 502, JSON.stringify(answer.body));
      assert.match(answer.body.error.message, /Agent gone is unreachable/);
      const statuses = (await a2aRows(app)).map((row) => `${row.provider} ${row.status}`).sort();
      // A stream cut after it opened answered HTTP 200; its row records why it ended.
      assert.deepEqual(statuses, ['a2a:gone 502', 'a2a:rough 502', 'a2a:rough 502', 'a2a:rough 504', 'a2a:rough 504']);
    });
  });
}
