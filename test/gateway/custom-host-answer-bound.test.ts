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
        const ask = JSON.parse(JSON.parse(raw).messages.at(-1).content) as { bytes: number; chunked: boolean; status?: number };
        const body = ask.status ? JSON.stringify({ error: { message: 'e'.repeat(ask.bytes), type: 'server_error', code: null, param: null } }) : completion('x'.repeat(ask.bytes));
        res.on('error', () => undefined);
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
          param: null,
          type: 'upstream_error',
        });
      }
    });
  }
});
