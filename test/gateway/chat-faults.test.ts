/** Upstream failures: timeouts (408), upstream statuses kept, failures mid-stream end the stream with an error event and are logged. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

/** Reads an SSE answer whole and returns its data payloads. */
function dataEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

describe('chat upstream faults', () => {
  let gw: GatewayApp;
  let headers: Record<string, string>;
  before(async () => {
    gw = await startGatewayApp();
    headers = { 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk' };
  });
  after(() => gw.close());

  const post = (extra: Record<string, string> = {}, payload: Record<string, unknown> = body) =>
    gw.app.http.post('/v1/chat/completions').set({ ...headers, ...extra }).send(payload);

  it('an upstream that never sends headers answers 408 after x-gw-request-timeout, and is logged', async () => {
    gw.fake.next({ kind: 'hang' });
    const before = gw.logs.length;
    const response = await post({ 'x-gw-request-timeout': '200' });
    assert.equal(response.status, 408);
    assert.equal(response.body.error.type, 'timeout_error');
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.status, 408);
    assert.equal(entry.error?.code, 'request_timeout');
  });

  it('REQUEST_TIMEOUT is the default when no header is sent', async () => {
    const strict = await startGatewayApp({ env: { REQUEST_TIMEOUT: '200' } });
    try {
      strict.fake.next({ kind: 'hang' });
      const response = await strict.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': strict.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': strict.fake.url, authorization: 'Bearer sk' })
        .send(body);
      assert.equal(response.status, 408);
    } finally {
      await strict.close();
    }
  });

  it('the timeout covers the body too: a stream that stalls ends with a 408 error event', async () => {
    gw.fake.next({ kind: 'stall-stream' });
    const before = gw.logs.length;
    const response = await post({ 'x-gw-request-timeout': '300' }, { ...body, stream: true });
    assert.equal(response.status, 200);
    const events = dataEvents(response.text);
    assert.equal(JSON.parse(events.at(-1)!).error.code, 'request_timeout');
    assert.ok(!events.includes('[DONE]'));
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.status, 408);
  });

  it('upstream 429 and 500 keep their status and message (and Retry-After)', async () => {
    gw.fake.next({ kind: 'error', status: 429, message: 'Rate limit reached', code: 'rate_limit_exceeded', headers: { 'retry-after': '7' } });
    const limited = await post();
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.message, 'Rate limit reached');
    assert.equal(limited.body.error.code, 'rate_limit_exceeded');
    assert.equal(limited.body.error.type, 'upstream_error');
    assert.equal(limited.headers['retry-after'], '7');
    gw.fake.next({ kind: 'error', status: 500, message: 'The server had an error' });
    const failed = await post();
    assert.equal(failed.status, 500);
    assert.equal(failed.body.error.message, 'The server had an error');
    assert.equal(failed.headers['x-gw-provider'], 'openai');
  });

  it('an error event mid-stream ends the stream with an error event, logged with the error', async () => {
    gw.fake.next({ kind: 'stream-error', message: 'overloaded mid-stream' });
    const before = gw.logs.length;
    const response = await post({}, { ...body, stream: true });
    assert.equal(response.status, 200);
    assert.match(response.headers['content-type']!, /^text\/event-stream/);
    const events = dataEvents(response.text);
    assert.equal(JSON.parse(events[1]!).choices[0].delta.content, 'partial');
    const last = JSON.parse(events.at(-1)!);
    assert.equal(last.error.message, 'overloaded mid-stream');
    assert.ok(!events.includes('[DONE]'));
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.status, 502);
    assert.equal(entry.error?.message, 'overloaded mid-stream');
  });

  it('a connection cut mid-stream ends the stream with an error event', async () => {
    gw.fake.next({ kind: 'cut-stream' });
    const before = gw.logs.length;
    const response = await post({}, { ...body, stream: true });
    const events = dataEvents(response.text);
    assert.ok(JSON.parse(events.at(-1)!).error, 'last event is an error');
    assert.ok(!events.includes('[DONE]'));
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.notEqual(entry.status, 200);
  });

  it('a refused connection is a 502', async () => {
    const response = await post({ 'x-gw-custom-host': 'http://127.0.0.1:1/v1' });
    assert.equal(response.status, 502);
    assert.equal(response.body.error.code, 'upstream_unreachable');
  });

  it('chunks pass through as they arrive, and a client that goes away aborts the upstream call', async () => {
    gw.fake.next({ kind: 'stall-stream' });
    const before = gw.logs.length;
    const abortedBefore = gw.fake.abortedByCaller;
    const controller = new AbortController();
    const pending = fetch(`${gw.app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
      signal: controller.signal,
    });
    const response = await pending;
    const reader = response.body!.getReader();
    // The upstream has sent one chunk and stalls: that chunk must already be here (no buffering).
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /^data: \{/);
    controller.abort();
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.status, 499);
    assert.equal(entry.error?.code, 'client_closed_request');
    for (let i = 0; i < 200 && gw.fake.abortedByCaller === abortedBefore; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(gw.fake.abortedByCaller, abortedBefore + 1, 'gw closed its upstream call');
  });
});
