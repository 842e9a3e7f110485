/**
 * One JSON line per gateway request on standard output, through gw's logger: trace id, route,
 * status, provider, model, latency and tokens, never a key or a body; GW_REQUEST_LOG_LEVEL sets
 * its level (silent turns it off).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { startGatewayApp } from '../helpers/gateway-app.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';

/** A logger like gw's own, writing its lines into an array. */
function capturingLogger(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, stream), lines };
}

async function chatThrough(env: Record<string, string>, level = 'info') {
  const { logger, lines } = capturingLogger(level);
  const gw = await startGatewayApp({ env, logger });
  try {
    const response = await gw.app.http
      .post('/v1/chat/completions')
      .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-provider-secret' })
      .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a private message' }] });
    assert.equal(response.status, 200);
    const refused = await gw.app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': gw.app.adminKey }).send({ model: 'gpt-4o', messages: [] });
    assert.equal(refused.status, 400);
    return { lines: lines.filter((line) => line.msg === 'request'), traceId: response.headers['x-gw-trace-id'], adminKey: gw.app.adminKey };
  } finally {
    await gw.close();
  }
}

describe('request log line', () => {
  it('one JSON line per request, with what an operator needs and no secret', async () => {
    const { lines, traceId, adminKey } = await chatThrough({});
    assert.equal(lines.length, 2, 'the served request and the refused one');
    const [served, refused] = lines;
    assert.equal(served!.level, 30);
    assert.equal(served!.trace_id, traceId);
    assert.equal(served!.route, 'chat.completions');
    assert.equal(served!.status, 200);
    assert.equal(served!.provider, 'openai');
    assert.equal(served!.model, 'gpt-4o');
    assert.equal(typeof served!.latency_ms, 'number');
    assert.equal(typeof served!.upstream_ms, 'number');
    assert.equal(served!.prompt_tokens, FAKE_USAGE.prompt_tokens);
    assert.equal(served!.completion_tokens, FAKE_USAGE.completion_tokens);
    assert.equal(refused!.status, 400);
    assert.equal(refused!.error, 'invalid_request');
    const text = JSON.stringify(lines);
    for (const secret of [adminKey, 'sk-provider-secret', 'a private message']) assert.ok(!text.includes(secret), `the line holds no ${secret}`);
  });

  it('GW_REQUEST_LOG_LEVEL sets its level, and silent turns it off', async () => {
    const debug = await chatThrough({ GW_REQUEST_LOG_LEVEL: 'debug' }, 'debug');
    assert.equal(debug.lines.length, 2);
    assert.equal(debug.lines[0]!.level, 20);
    const belowLogger = await chatThrough({ GW_REQUEST_LOG_LEVEL: 'debug' }, 'info');
    assert.equal(belowLogger.lines.length, 0, 'a level below GW_LOG_LEVEL writes nothing');
    const silent = await chatThrough({ GW_REQUEST_LOG_LEVEL: 'silent' });
    assert.equal(silent.lines.length, 0);
  });
});
