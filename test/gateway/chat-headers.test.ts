/** Gateway request headers: spans and metadata into the log, forwarded and sensitive headers, and what the answer says. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const sha = (value: string) => 'sha256:' + createHash('sha256').update(value).digest('hex');

describe('chat headers', () => {
  let gw: GatewayApp;
  let headers: Record<string, string>;
  before(async () => {
    gw = await startGatewayApp({ env: { ORGANISATION_HEADERS_TO_MASK: 'x-org-secret' } });
    headers = { 'x-gw-api-key': gw.app.adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url, authorization: 'Bearer sk-up' };
  });
  after(() => gw.close());

  const post = (extra: Record<string, string>) => gw.app.http.post('/v1/chat/completions').set({ ...headers, ...extra }).send(body);

  it('logs the trace id, spans and metadata, and returns the trace id', async () => {
    const before = gw.logs.length;
    const response = await post({
      'x-gw-trace-id': 'trace-123',
      'x-gw-span-id': 'span-1',
      'x-gw-parent-span-id': 'span-0',
      'x-gw-span-name': 'answer',
      'x-gw-metadata': JSON.stringify({ _user: 'ada', team: 'core' }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers['x-gw-trace-id'], 'trace-123');
    const entry = (await logsSettled(gw, before + 1)).at(-1)!;
    assert.equal(entry.trace_id, 'trace-123');
    assert.equal(entry.span_id, 'span-1');
    assert.equal(entry.parent_span_id, 'span-0');
    assert.equal(entry.span_name, 'answer');
    assert.deepEqual(entry.metadata, { _user: 'ada', team: 'core' });
  });

  it('generates a trace id when none is sent, returns it and logs it', async () => {
    const before = gw.logs.length;
    const first = await post({});
    const second = await post({});
    assert.equal(first.status, 200);
    const traceId = first.headers['x-gw-trace-id'] ?? '';
    assert.match(traceId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.notEqual(second.headers['x-gw-trace-id'], traceId, 'a fresh one per request');
    const logged = await logsSettled(gw, before + 2);
    assert.equal(logged[before]!.trace_id, traceId);
  });

  it('x-gw-request-timeout must be a number of milliseconds', async () => {
    const calls = gw.fake.requests.length;
    for (const timeout of ['soon', '-5', '1.5']) {
      const response = await post({ 'x-gw-request-timeout': timeout });
      assert.equal(response.status, 400, timeout);
      assert.equal(response.body.error.param, 'x-gw-request-timeout', timeout);
    }
    assert.equal(gw.fake.requests.length, calls, 'no upstream call');
  });

  it('x-gw-metadata must be a JSON object of strings', async () => {
    for (const metadata of ['{not json', '[1,2]', '"text"', '{"n": 1}']) {
      const response = await post({ 'x-gw-metadata': metadata });
      assert.equal(response.status, 400, metadata);
      assert.equal(response.body.error.param, 'x-gw-metadata');
    }
  });

  it('forwards the headers x-gw-forward-headers names, as sent', async () => {
    const response = await post({ 'x-gw-forward-headers': 'X-Tenant, x-request-source', 'x-tenant': 'acme', 'x-request-source': 'batch', 'x-not-forwarded': 'no' });
    assert.equal(response.status, 200);
    const upstream = gw.fake.requests.at(-1)!;
    assert.equal(upstream.headers['x-tenant'], 'acme');
    assert.equal(upstream.headers['x-request-source'], 'batch');
    assert.equal(upstream.headers['x-not-forwarded'], undefined);
  });

  it('refuses to forward gw headers or hop-by-hop headers', async () => {
    const response = await post({ 'x-gw-forward-headers': 'x-gw-api-key' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.param, 'x-gw-forward-headers');
  });

  /** The request headers as the stored log row keeps them. */
  async function storedHeaders(traceId: string): Promise<Record<string, string>> {
    await gw.app.services.requestLogs.flush();
    const list = await gw.app.http.get('/v1/logs').query({ trace_id: traceId }).set({ 'x-gw-api-key': gw.app.adminKey });
    assert.equal(list.body.data.length, 1);
    const one = await gw.app.http.get(`/v1/logs/${list.body.data[0].id}`).set({ 'x-gw-api-key': gw.app.adminKey });
    return one.body.request_headers;
  }

  for (const [form, value] of [
    ['a comma-separated list', 'x-user-email, X-Second'],
    ['a JSON array', '["x-user-email", "X-Second"]'],
  ] as const) {
    it(`hashes sensitive headers named as ${form} (and organisation-wide ones, and credentials) in the log, and forwards nothing because of it`, async () => {
      const traceId = `sensitive-${form.length}`;
      const extra = { 'x-gw-trace-id': traceId, 'x-gw-sensitive-headers': value, 'x-user-email': 'ada@example.com', 'x-second': 'two', 'x-org-secret': 's3cret', 'x-plain': 'visible' };
      const response = await post(extra);
      assert.equal(response.status, 200);
      const upstream = gw.fake.requests.at(-1)!;
      assert.equal(upstream.headers['x-user-email'], undefined);
      assert.equal(upstream.headers['x-org-secret'], undefined);
      const logged = await storedHeaders(traceId);
      assert.equal(logged['x-user-email'], sha('ada@example.com'));
      assert.equal(logged['x-second'], sha('two'));
      assert.equal(logged['x-org-secret'], sha('s3cret'));
      assert.equal(logged.authorization, sha('Bearer sk-up'));
      assert.equal(logged['x-gw-api-key'], sha(gw.app.adminKey));
      assert.equal(logged['x-plain'], 'visible');
    });
  }

  it('forwards the headers x-gw-forward-headers names as a JSON array', async () => {
    const response = await post({ 'x-gw-forward-headers': '["X-Tenant"]', 'x-tenant': 'acme' });
    assert.equal(response.status, 200);
    assert.equal(gw.fake.requests.at(-1)!.headers['x-tenant'], 'acme');
  });

  for (const header of ['x-gw-sensitive-headers', 'x-gw-forward-headers']) {
    for (const bad of ['[1, 2]', '["ok", "not a name"]', '{"a": 1}', '[unclosed', 'with space', 'x-a;x-b']) {
      it(`refuses ${header}: ${bad} with 400 naming the header`, async () => {
        const response = await post({ [header]: bad });
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.equal(response.body.error.param, header);
        assert.equal(response.body.error.code, 'invalid_header_list');
      });
    }
  }

  it('says which provider served, and the retry and cache state under a config', async () => {
    const response = await post({});
    assert.equal(response.headers['x-gw-provider'], 'openai');
    assert.equal(response.headers['x-gw-cache-status'], 'DISABLED');
    const viaConfig = await gw.app.http
      .post('/v1/chat/completions')
      .set({
        'x-gw-api-key': gw.app.adminKey,
        'x-gw-config': JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'k', custom_host: 'http://127.0.0.1:1/v1' }, { provider: 'openai', api_key: 'k', custom_host: gw.fake.url }] }),
      })
      .send(body);
    assert.equal(viaConfig.status, 200, JSON.stringify(viaConfig.body));
    assert.equal(viaConfig.headers['x-gw-last-used-option-index'], '1');
    assert.equal(viaConfig.headers['x-gw-retry-attempt-count'], '0');
    assert.equal(viaConfig.headers['x-gw-provider'], 'openai');
  });
});
