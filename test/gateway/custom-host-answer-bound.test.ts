/**
 * A custom host is a server someone else names: gw reads at most GW_MAX_UPSTREAM_ANSWER_BYTES of
 * an answer it reads whole, and past that answers 502 upstream_answer_too_large in the OpenAI error
 * shape, whether the length was declared or the body came chunked. The upstream is a loopback
 * OpenAI-shaped fake whose answer is as large as the test asks.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const MAX_ANSWER = 16 * 1024;

function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-big',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
}

describe('answers from a custom host past GW_MAX_UPSTREAM_ANSWER_BYTES', () => {
  let app: TestApp;
  let upstream: Server;
  let upstreamUrl: string;
  before(async () => {
    // The content length the request's last user message asks for; `chunked` leaves the length undeclared; `status` answers an error that large.
    upstream = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const request = JSON.parse(raw) as { stream?: boolean; messages: Array<{ content: string }> };
        const ask = JSON.parse(request.messages.at(-1)!.content) as { bytes: number; chunked: boolean; status?: number };
        res.on('error', () => undefined);
        if (request.stream) {
          // Chunks of 1,000 characters until `bytes` have gone, then the end of the stream.
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = (delta: Record<string, unknown>, finish: string | null) =>
            `data: ${JSON.stringify({ id: 'chatcmpl-big', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
          let sent = 0;
          const pump = () => {
            while (sent < ask.bytes && !res.destroyed) {
              sent += 1000;
              if (!res.write(chunk({ content: 'x'.repeat(1000) }, null))) return void res.once('drain', pump);
            }
            res.end(chunk({}, 'stop') + 'data: [DONE]\n\n');
          };
          return pump();
        }
        const body = ask.status ? JSON.stringify({ error: { message: 'e'.repeat(ask.bytes), type: 'server_error', code: null, param: null } }) : completion('x'.repeat(ask.bytes));
        res.writeHead(ask.status ?? 200, { 'content-type': 'application/json', ...(ask.chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }) });
        if (!ask.chunked) return void res.end(body);
        for (let at = 0; at < body.length; at += 4096) res.write(body.slice(at, at + 4096));
        res.end();
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    app = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_MAX_UPSTREAM_ANSWER_BYTES: String(MAX_ANSWER) } });
  });
  after(async () => {
    await app.close();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  const ask = (what: { bytes: number; chunked: boolean; status?: number }) =>
    app.http
      .post('/v1/chat/completions')
      .set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstreamUrl, authorization: 'Bearer sk-test' })
      .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: JSON.stringify(what) }] });

  for (const chunked of [false, true]) {
    test(`${chunked ? 'chunked' : 'declared length'}: an answer under the bound is served; one over it is refused with 502 naming the setting`, async () => {
      const small = await ask({ bytes: 1000, chunked });
      assert.equal(small.status, 200, small.text.slice(0, 300));
      assert.equal(small.body.choices[0].message.content.length, 1000);

      for (const status of [undefined, 500]) {
        const big = await ask({ bytes: 5 * MAX_ANSWER, chunked, status });
        assert.equal(big.status, 502, big.text.slice(0, 300));
        const origin = new URL(upstreamUrl).origin;
        assert.deepEqual(big.body.error, {
          code: 'upstream_answer_too_large',
          message: `${origin} answered more than ${MAX_ANSWER} bytes, the most gw reads from another server (GW_MAX_UPSTREAM_ANSWER_BYTES)`,
          type: 'upstream_error',
        });
      }
    });
  }

  test('a stream: one under the bound is relayed whole; past it the stream ends with an error event naming the setting', async () => {
    const send = (bytes: number) =>
      app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstreamUrl, authorization: 'Bearer sk-test' })
        .send({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: JSON.stringify({ bytes, chunked: true }) }] });
    const small = await send(3000);
    assert.equal(small.status, 200);
    assert.match(small.text, /data: \[DONE\]/);

    const big = await send(100 * MAX_ANSWER);
    assert.equal(big.status, 200, 'the stream had opened');
    const events = big.text.split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => block.slice(6));
    assert.ok(!events.includes('[DONE]'), 'a cut answer does not end as a whole one');
    const error = JSON.parse(events.at(-1)!) as { error: { code: string; message: string } };
    assert.equal(error.error.code, 'upstream_answer_too_large');
    assert.match(error.error.message, /GW_MAX_UPSTREAM_ANSWER_BYTES/);
  });
});
