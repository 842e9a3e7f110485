/**
 * OpenTelemetry traces, received by an in-process OTLP/HTTP receiver on loopback: a server span
 * per request (child of the caller's traceparent), a child span per pipeline stage and per
 * upstream attempt with provider, model, status, tokens and cache status; trace ids shared with
 * x-gw-trace-id; traceparent sent upstream. With tracing off the caller's traceparent is still
 * honoured and passed on.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { FAKE_USAGE } from '../helpers/fake-openai.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

const SERVER = 2;
const CLIENT = 3;

/** An OTLP/HTTP trace receiver (JSON encoding, as the official exporter sends it). */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      assert.equal(req.url, '/v1/traces');
      assert.match(String(req.headers['content-type']), /application\/json/);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  const raw = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
  return typeof raw === 'string' && value.intValue !== undefined ? Number(raw) : raw;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('OpenTelemetry traces', () => {
  let gw: GatewayApp;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const inline = () => ({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk' });
  const chat = (headers: Record<string, string>) => gw.app.http.post('/v1/chat/completions').set(headers).send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  const spansOf = async (traceId: string, count: number) => {
    // Bounded wait: a loaded machine can be slow to export (a request's own spans end after its answer).
    let found: OtlpSpan[] = [];
    for (let i = 0; i < 50 && found.length < count; i++) {
      await gw.app.services.tracing!.flush();
      found = receiver.spans.filter((span) => span.traceId === traceId);
      if (found.length < count) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(found.length >= count, `expected at least ${count} spans of ${traceId}, got ${found.length}`);
    return found;
  };

  before(async () => {
    receiver = await startOtlpReceiver();
    gw = await startGatewayApp({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gw-test' } });
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  it('a request with a traceparent: server span under the caller, a span per stage and per upstream attempt, traceparent sent upstream', async () => {
    const before = gw.logs.length;
    const response = await chat({ ...inline(), traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` });
    assert.equal(response.status, 200);
    assert.equal(response.headers['x-gw-trace-id'], TRACE_ID, 'x-gw-trace-id is the traceparent trace id');

    const upstream = gw.fake.requests.at(-1)!.headers.traceparent as string;
    const [, upstreamTrace, upstreamSpan, flags] = upstream.split('-');
    assert.equal(upstreamTrace, TRACE_ID);
    assert.equal(flags, '01');

    const spans = await spansOf(TRACE_ID, 3);
    const server = spans.find((span) => span.kind === SERVER)!;
    assert.equal(server.name, 'POST /v1/chat/completions');
    assert.equal(server.parentSpanId, CALLER_SPAN);
    assert.equal(attribute(server, 'http.response.status_code'), 200);
    assert.equal(attribute(server, 'gw.provider'), 'openai');
    assert.equal(attribute(server, 'gen_ai.request.model'), 'gpt-4o');
    assert.equal(attribute(server, 'gen_ai.usage.input_tokens'), FAKE_USAGE.prompt_tokens);
    assert.equal(attribute(server, 'gen_ai.usage.output_tokens'), FAKE_USAGE.completion_tokens);
    assert.equal(attribute(server, 'gw.cache_status'), 'DISABLED');
    assert.equal(attribute(server, 'gw.request_body'), undefined, 'no bodies by default');

    const stages = spans.filter((span) => span.name.startsWith('stage ')).map((span) => span.name);
    assert.deepEqual(stages.slice(0, 3), ['stage read-headers', 'stage resolve-provider', 'stage rate-limits']);
    assert.ok(stages.includes('stage route') && stages.includes('stage respond'));
    for (const span of spans.filter((s) => s.name.startsWith('stage '))) assert.equal(span.parentSpanId, server.spanId);

    const attempt = spans.find((span) => span.kind === CLIENT)!;
    assert.equal(attempt.name, 'upstream attempt');
    assert.equal(attempt.spanId, upstreamSpan, 'the upstream call carries its attempt span as parent');
    assert.equal(attempt.parentSpanId, server.spanId);
    assert.equal(attribute(attempt, 'gw.provider'), 'openai');
    assert.equal(attribute(attempt, 'http.response.status_code'), 200);
    assert.equal(attribute(attempt, 'gen_ai.usage.input_tokens'), FAKE_USAGE.prompt_tokens);

    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.trace_id, TRACE_ID);
    assert.equal(entry.span_id, server.spanId);
    assert.equal(entry.parent_span_id, CALLER_SPAN);
  });

  it('x-gw-trace-id as a UUID is the OpenTelemetry trace id, and each retry is its own attempt span', async () => {
    const traceId = '0b2f6c1e-8a4d-4c3b-9e7f-1a2b3c4d5e6f';
    const otelId = traceId.replaceAll('-', '');
    gw.fake.next({ kind: 'error', status: 500 });
    const response = await chat({ ...inline(), 'x-gw-trace-id': traceId, 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: gw.fake.url, retry: { attempts: 1 } }) });
    assert.equal(response.status, 200);
    assert.equal(response.headers['x-gw-trace-id'], traceId);
    assert.equal((gw.fake.requests.at(-1)!.headers.traceparent as string).split('-')[1], otelId);
    const attempts = (await spansOf(otelId, 2)).filter((span) => span.kind === CLIENT);
    assert.deepEqual(attempts.map((span) => attribute(span, 'http.response.status_code')).sort(), [200, 500]);
    assert.equal(attempts.find((span) => attribute(span, 'http.response.status_code') === 500)!.status?.code, 2, 'the failed attempt is an error span');
  });

  it("gw's own trace headers in W3C form make the caller's span the parent, as a traceparent would", async () => {
    const traceId = 'ef'.repeat(16);
    const response = await chat({ ...inline(), 'x-gw-trace-id': traceId, 'x-gw-parent-span-id': CALLER_SPAN });
    assert.equal(response.status, 200);
    assert.equal(gw.fake.requests.at(-1)!.headers.traceparent?.toString().split('-')[1], traceId);
    const server = (await spansOf(traceId, 1)).find((span) => span.kind === SERVER)!;
    assert.equal(server.parentSpanId, CALLER_SPAN);
  });

  it('control-plane requests get a server span named by their route template', async () => {
    const response = await gw.app.http.get('/v1/configs/no-such-config').set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-trace-id': 'ab'.repeat(16) });
    assert.equal(response.status, 404);
    const [server] = await spansOf('ab'.repeat(16), 1);
    assert.equal(server!.name, 'GET /v1/configs/{id}');
    assert.equal(attribute(server!, 'http.response.status_code'), 404);
  });
});

describe('traces keep no secret', () => {
  it('an upstream error that echoes the key, and captured bodies, reach the exporter masked', async () => {
    const receiver = await startOtlpReceiver();
    const gw = await startGatewayApp({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url, GW_TRACES_CAPTURE_BODIES: 'true' } });
    const key = 'sk-trace-leak-4f1c9b7e2a';
    try {
      gw.fake.next({ kind: 'error', status: 401, message: `Incorrect API key provided: ${key}` });
      const response = await gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: key, custom_host: gw.fake.url }), 'x-gw-trace-id': 'cd'.repeat(16) })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: `my key is ${key}` }] });
      assert.equal(response.status, 401);
      let spans: OtlpSpan[] = [];
      for (let i = 0; i < 50 && !spans.some((span) => span.kind === CLIENT); i++) {
        await gw.app.services.tracing!.flush();
        spans = receiver.spans.filter((span) => span.traceId === 'cd'.repeat(16));
        if (!spans.some((span) => span.kind === CLIENT)) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const attempt = spans.find((span) => span.kind === CLIENT);
      assert.ok(attempt, 'the failed attempt was exported');
      assert.match(JSON.stringify(attempt.status), /Incorrect API key provided/, 'the status keeps the message');
      const server = spans.find((span) => span.kind === SERVER)!;
      assert.match(String(attribute(server, 'gw.request_body')), /my key is/, 'bodies were captured');
      assert.ok(!JSON.stringify(receiver.spans).includes(key), 'the key is masked in every exported span');
    } finally {
      await gw.close();
      await receiver.close();
    }
  });
});

describe('traces off', () => {
  it('the caller traceparent still names the trace and the parent span, and is passed upstream unchanged', async () => {
    const gw = await startGatewayApp();
    try {
      assert.equal(gw.app.services.tracing, undefined);
      const traceparent = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
      const response = await gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk', traceparent, tracestate: 'vendor=1' })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(response.status, 200);
      assert.equal(response.headers['x-gw-trace-id'], TRACE_ID);
      assert.equal(gw.fake.requests.at(-1)!.headers.traceparent, traceparent);
      assert.equal(gw.fake.requests.at(-1)!.headers.tracestate, 'vendor=1');
      const entry = (await logsSettled(gw, 1)).at(-1)!;
      assert.equal(entry.parent_span_id, CALLER_SPAN);
      assert.equal(entry.span_id, null);
      await gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk', 'x-gw-trace-id': TRACE_ID, 'x-gw-parent-span-id': CALLER_SPAN })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
        .expect(200);
      assert.equal(gw.fake.requests.at(-1)!.headers.traceparent, `00-${TRACE_ID}-${CALLER_SPAN}-01`, 'gw headers travel upstream as a traceparent');
    } finally {
      await gw.close();
    }
  });
});
