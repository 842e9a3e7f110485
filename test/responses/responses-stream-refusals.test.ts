/**
 * A streamed Responses call refused before its stream opened (a guardrail deny, a rate limit, an
 * upstream error before any byte) answers that refusal as JSON in the spec's error shape with its
 * status — not a 200 with an empty body. Seen both raw and through the official `openai` client;
 * the chat pipeline's own streamed doors (chat completions, completions) are held to the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

interface ErrorAnswer {
  error: { code: unknown; message: string; param: unknown; type: string };
  hook_results?: { before_request_hooks: Array<{ verdict: boolean }> };
}

for (const engine of fullEngines()) {
  describe(`Streamed Responses refused before the stream opened (${engine.name})`, () => {
    let gw: GatewayApp;
    const headers = () => ({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-upstream', 'content-type': 'application/json' });
    const streamed = (extra: Record<string, string> = {}, input = 'hi') =>
      fetch(`${gw.app.url}/v1/responses`, { method: 'POST', headers: { ...headers(), ...extra }, body: JSON.stringify({ model: 'gpt-4o', input, stream: true }) });
    async function errorAnswer(res: Response, status: number): Promise<ErrorAnswer> {
      assert.equal(res.status, status);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      const body = (await res.json()) as ErrorAnswer;
      for (const [field, value] of Object.entries(body.error)) assert.equal(typeof value, 'string', `error.${field}`);
      assert.deepEqual(Object.keys(body.error).filter((key) => key !== 'param').sort(), ['code', 'message', 'type']);
      assert.equal(typeof body.error.message, 'string');
      return body;
    }

    before(async () => {
      gw = await startGatewayApp({ engine });
    });
    after(() => gw?.close());

    it('answers a guardrail deny with 446, the error and hook_results, before any upstream call', async () => {
      const config = JSON.stringify({ input_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' } }], actions: { deny: true } }] });
      const calls = gw.fake.requests.length;
      const body = await errorAnswer(await streamed({ 'x-gw-config': config }, 'a forbidden word'), 446);
      assert.equal(body.hook_results?.before_request_hooks.length, 1);
      assert.equal(body.hook_results?.before_request_hooks[0]!.verdict, false);
      assert.equal(gw.fake.requests.length, calls, 'the denied request never reached the upstream');

      const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, 'x-gw-config': config });
      await assert.rejects(client.responses.create({ model: 'gpt-4o', input: 'a forbidden word', stream: true }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 446, String(error));
        return true;
      });
    });

    it('answers the same deny on the other streamed doors of the chat pipeline (chat completions, completions)', async () => {
      const config = JSON.stringify({ input_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' } }], actions: { deny: true } }] });
      const doors = [
        { path: '/v1/chat/completions', body: { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a forbidden word' }] } },
        { path: '/v1/completions', body: { model: 'gpt-3.5-turbo-instruct', stream: true, prompt: 'a forbidden word' } },
      ];
      for (const door of doors) {
        const res = await fetch(`${gw.app.url}${door.path}`, { method: 'POST', headers: { ...headers(), 'x-gw-config': config }, body: JSON.stringify(door.body) });
        const body = await errorAnswer(res, 446);
        assert.equal(body.hook_results?.before_request_hooks.length, 1, door.path);
      }
    });

    it('answers a rate limit with 429 in the error shape, before any upstream call', async () => {
      const policy = await gw.app.http
        .post('/v2/policies/rate-limits')
        .set({ 'x-gw-api-key': gw.app.adminKey })
        .send({ name: 'responses rpm', type: 'requests', unit: 'hour', value: 1, conditions: [{ key: 'metadata.test', value: 'responses-stream-rpm' }] });
      assert.equal(policy.status, 201, JSON.stringify(policy.body));
      const tagged = { 'x-gw-metadata': JSON.stringify({ test: 'responses-stream-rpm' }) };
      const first = await streamed(tagged);
      assert.equal(first.status, 200);
      assert.match(await first.text(), /response\.completed/);
      const calls = gw.fake.requests.length;
      await errorAnswer(await streamed(tagged), 429);
      assert.equal(gw.fake.requests.length, calls, 'the limited request never reached the upstream');
    });

    for (const status of [400, 503]) {
      it(`answers an upstream ${status} before any byte with that status and the upstream's message`, async () => {
        const logged = gw.logs.length;
        gw.fake.next({ kind: 'error', status, message: `fake refusal ${status}` });
        const body = await errorAnswer(await streamed(), status);
        assert.match(body.error.message, new RegExp(`fake refusal ${status}`));
        const entry = (await logsSettled(gw, logged + 1)).at(-1)!;
        assert.deepEqual([entry.endpoint, entry.status], ['responses', status]);

        gw.fake.next({ kind: 'error', status, message: `fake refusal ${status}` });
        const client = gw.openai({ 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url });
        await assert.rejects(client.responses.create({ model: 'gpt-4o', input: 'hi', stream: true }), (error: unknown) => {
          assert.ok(error instanceof OpenAI.APIError && error.status === status, String(error));
          return true;
        });
      });
    }
  });
}
