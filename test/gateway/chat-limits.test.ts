/** One failing request per row of the spec's Limits table that applies to chat: 400 naming the field, and no upstream call. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const messages = [{ role: 'user', content: 'hi' }];
const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object' } } };
const fn = { name: 'f', parameters: { type: 'object' } };

const cases: Array<{ row: string; body: Record<string, unknown>; param: string }> = [
  { row: 'messages: at least 1', body: { messages: [] }, param: 'messages' },
  { row: 'n: at least 1', body: { n: 0 }, param: 'n' },
  { row: 'n: at most 128', body: { n: 129 }, param: 'n' },
  { row: 'frequency_penalty: at least -2', body: { frequency_penalty: -2.5 }, param: 'frequency_penalty' },
  { row: 'frequency_penalty: at most 2', body: { frequency_penalty: 2.1 }, param: 'frequency_penalty' },
  { row: 'presence_penalty: at least -2', body: { presence_penalty: -3 }, param: 'presence_penalty' },
  { row: 'presence_penalty: at most 2', body: { presence_penalty: 3 }, param: 'presence_penalty' },
  { row: 'logit_bias values: at least -100', body: { logit_bias: { '50256': -101 } }, param: 'logit_bias[50256]' },
  { row: 'logit_bias values: at most 100', body: { logit_bias: { '50256': 101 } }, param: 'logit_bias[50256]' },
  { row: 'top_logprobs: at least 0', body: { logprobs: true, top_logprobs: -1 }, param: 'top_logprobs' },
  { row: 'top_logprobs: at most 20', body: { logprobs: true, top_logprobs: 21 }, param: 'top_logprobs' },
  { row: 'top_logprobs: only with logprobs true', body: { top_logprobs: 2 }, param: 'logprobs' },
  { row: 'temperature: at least 0', body: { temperature: -0.1 }, param: 'temperature' },
  { row: 'temperature: at most 2', body: { temperature: 2.5 }, param: 'temperature' },
  { row: 'top_p: at least 0', body: { top_p: -0.1 }, param: 'top_p' },
  { row: 'top_p: at most 1', body: { top_p: 1.5 }, param: 'top_p' },
  { row: 'stop: at least 1 item', body: { stop: [] }, param: 'stop' },
  { row: 'stop: at most 4 items', body: { stop: ['a', 'b', 'c', 'd', 'e'] }, param: 'stop' },
  { row: 'tools: at most 128', body: { tools: Array.from({ length: 129 }, () => tool) }, param: 'tools' },
  { row: 'functions: at most 128', body: { functions: Array.from({ length: 129 }, () => fn) }, param: 'functions' },
  { row: 'functions: at least 1', body: { functions: [] }, param: 'functions' },
  { row: 'thinking budget_tokens: at least 1', body: { thinking: { type: 'enabled', budget_tokens: 0 } }, param: 'thinking.budget_tokens' },
  { row: 'response_format json_schema name: letters, digits, _ and -', body: { response_format: { type: 'json_schema', json_schema: { name: 'bad name!' } } }, param: 'response_format.json_schema.name' },
];

describe('chat limits (spec Limits table)', () => {
  let gw: GatewayApp;
  before(async () => {
    gw = await startGatewayApp();
  });
  after(() => gw.close());

  it('a request within every limit is accepted', async () => {
    const response = await gw.app.http
      .post('/v1/chat/completions')
      .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk' })
      .send({ model: 'gpt-4o', messages, n: 128, temperature: 2, top_p: 0, stop: ['a', 'b', 'c', 'd'], logprobs: true, top_logprobs: 20, logit_bias: { '1': 100 } });
    assert.equal(response.status, 200, JSON.stringify(response.body));
  });

  for (const { row, body, param } of cases) {
    it(`${row} -> 400 naming ${param}`, async () => {
      const calls = gw.fake.requests.length;
      const response = await gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk' })
        .send({ model: 'gpt-4o', messages, ...body });
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      assert.equal(gw.fake.requests.length, calls, 'no upstream call');
    });
  }
});
