/**
 * Every secret a request carries is masked before it reaches anything gw keeps or shows. Secrets
 * are planted in each place a request can carry one (Authorization, provider headers, an inline
 * config at any depth, forwarded headers, headers named sensitive, an upstream error that echoes
 * a key), then searched for in the log API, an export download, the audit log, every answer,
 * standard output and the raw tables.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { RequestSecrets } from '../../core/redaction.js';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const SECRETS = {
  bearer: 'sk-bearer-0f3a9c1e7d5b2468',
  cloud3Secret: 'aws-secret-9e8d7c6b5a4f3e2d',
  cloud3Session: 'aws-session-1a2b3c4d5e6f7a8b',
  configTop: 'sk-config-top-5d4c3b2a1f0e9d8c',
  configDeep: 'sk-config-deep-7b6a5f4e3d2c1b0a',
  brokenConfig: 'sk-broken-config-8e7d6c5b4a3f2e',
  forwarded: 'tok-forwarded-2d1c0b9a8f7e6d5c',
  sensitive: 'sensitive-value-6f5e4d3c2b1a0f9e',
  integrationKey: 'sk-integration-4a3b2c1d0e9f8a7b',
} as const;

for (const engine of fullEngines()) {
  describe(`secrets never reach logs, exports, audit, answers or standard output (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    const stdout: string[] = [];
    const answers: string[] = [];
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      fake = await startFakeOpenAi();
      const sink = new Writable({
        write(chunk, _encoding, done) {
          stdout.push(String(chunk));
          done();
        },
      });
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' }, logger: pino({ level: 'debug' }, sink) });
    });
    after(async () => {
      await app?.close();
      await fake?.close();
    });

    async function chat(headers: Record<string, string>, body: Record<string, unknown> = {}) {
      const response = await app.http
        .post('/v1/chat/completions')
        .set({ ...admin(), ...headers })
        .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], ...body });
      answers.push(JSON.stringify(response.body), response.text ?? '');
      return response;
    }

    const providerHeaders = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url, authorization: `Bearer ${SECRETS.bearer}` });

    test('requests carrying secrets in every place are served, and forwarded headers still reach the upstream', async () => {
      const plain = await chat({
        ...providerHeaders(),
        'x-gw-trace-id': 'leak-headers',
        'x-gw-cloud3-secret-access-key': SECRETS.cloud3Secret,
        'x-gw-cloud3-session-token': SECRETS.cloud3Session,
        'x-gw-forward-headers': '["x-upstream-auth-token"]',
        'x-upstream-auth-token': SECRETS.forwarded,
        'x-gw-sensitive-headers': '["x-customer-ref"]',
        'x-customer-ref': SECRETS.sensitive,
      });
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.equal(fake.requests.at(-1)!.headers['x-upstream-auth-token'], SECRETS.forwarded);

      const config = {
        strategy: { mode: 'fallback' },
        targets: [
          { provider: 'openai', api_key: SECRETS.configTop, custom_host: fake.url, cache: { mode: 'simple' } },
          { strategy: { mode: 'single' }, targets: [{ provider: 'openai', api_key: SECRETS.configDeep, custom_host: fake.url }] },
        ],
      };
      fake.next({ kind: 'error', status: 500 });
      const routed = await chat({ 'x-gw-trace-id': 'leak-config', 'x-gw-config': JSON.stringify(config) }, { messages: [{ role: 'user', content: 'once' }] });
      assert.equal(routed.status, 200, JSON.stringify(routed.body));

      const broken = await chat({ 'x-gw-trace-id': 'leak-broken-config', 'x-gw-config': `{"provider":"openai","api_key":"${SECRETS.brokenConfig}",` });
      assert.equal(broken.status, 400);
    });

    test('an upstream error that echoes the key is answered and logged without it, streamed or not', async () => {
      fake.next({ kind: 'error', status: 401, message: `Incorrect API key provided: ${SECRETS.bearer}.` });
      const echoed = await chat({ ...providerHeaders(), 'x-gw-trace-id': 'leak-echo' });
      assert.equal(echoed.status, 401);
      assert.match(echoed.body.error.message, /Incorrect API key provided: \[redacted\]/);

      fake.next({ kind: 'stream-error', message: `key ${SECRETS.bearer} was revoked` });
      const streamed = await chat({ ...providerHeaders(), 'x-gw-trace-id': 'leak-echo-stream' }, { stream: true });
      assert.equal(streamed.status, 200);
      assert.match(streamed.text, /key \[redacted\] was revoked/);
    });

    test('an administrative write with secrets in its body is audited without them', async () => {
      const created = await app.http
        .post('/v1/integrations')
        .set(admin())
        .send({ name: 'Leak check', ai_provider_id: 'openai', key: SECRETS.integrationKey });
      answers.push(JSON.stringify(created.body));
      assert.equal(created.status, 201, JSON.stringify(created.body));
    });

    test('no planted secret is in the log API, an export download, the audit API, any answer, standard output or the raw tables', async () => {
      await app.services.requestLogs.flush();
      const seen: string[] = [...answers, ...stdout];

      const list = await app.http.get('/v1/logs').query({ limit: 100 }).set(admin());
      assert.equal(list.status, 200);
      const traced = list.body.data.filter((log: { trace_id: string }) => log.trace_id.startsWith('leak-'));
      assert.equal(new Set(traced.map((log: { trace_id: string }) => log.trace_id)).size, 5, 'every planted request was logged');
      seen.push(JSON.stringify(list.body));
      for (const log of traced) seen.push(JSON.stringify((await app.http.get(`/v1/logs/${log.id}`).set(admin())).body));

      const configLog = traced.find((log: { trace_id: string }) => log.trace_id === 'leak-config');
      const configHeaders = (await app.http.get(`/v1/logs/${configLog.id}`).set(admin())).body.request_headers;
      const loggedConfig = JSON.parse(configHeaders['x-gw-config']);
      assert.equal(loggedConfig.targets[1].targets[0].api_key, '[redacted]', 'the config stays readable, its secrets do not');
      assert.equal(loggedConfig.targets[1].targets[0].provider, 'openai');

      const fields = ['id', 'trace_id', 'request_headers', 'request_body', 'response_body', 'error', 'route', 'metadata'];
      const created = await app.http.post('/v1/logs/exports').set(admin()).send({ requested_fields: fields });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await app.http.post(`/v1/logs/exports/${created.body.id}/start`).set(admin())).status, 200);
      await app.services.logExports.idle();
      const download = await app.http
        .get(`/v1/logs/exports/${created.body.id}/download`)
        .set(admin())
        .buffer(true)
        .parse((res, done) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => done(null, text));
        });
      assert.equal(download.status, 200);
      assert.match(download.body as string, /leak-config/);
      seen.push(download.body as string);

      const audit = await app.http.get('/v1/audit-logs').set(admin());
      assert.equal(audit.status, 200);
      assert.ok(audit.body.data.some((entry: { action: string }) => entry.action === 'createIntegration'));
      seen.push(JSON.stringify(audit.body));

      const { db } = app.services;
      seen.push(JSON.stringify(await db('request_logs').select('*')), JSON.stringify(await db('audit_logs').select('*')));

      for (const [where, secret] of Object.entries(SECRETS)) {
        const leaks = seen.filter((text) => text.includes(secret));
        assert.equal(leaks.length, 0, `the ${where} secret leaked: ${leaks[0]?.slice(0, 300)}`);
      }
    });
  });
}

describe('request secrets', () => {
  test('a value is masked however it is quoted, and short values are left in free text', () => {
    const secrets = new RequestSecrets({ authorization: 'Bearer sk-"quoted"\\slash-0123', 'x-api-key': 'short' });
    assert.equal(secrets.text('said sk-"quoted"\\slash-0123 twice: sk-"quoted"\\slash-0123'), 'said [redacted] twice: [redacted]');
    assert.equal(secrets.text(JSON.stringify({ echo: 'sk-"quoted"\\slash-0123' })), '{"echo":"[redacted]"}');
    assert.equal(secrets.text('a short word'), 'a short word');
    assert.match(secrets.headers()['x-api-key']!, /^sha256:[0-9a-f]{64}$/);
  });

  test('a value that contains another is masked whole, and a value JSON escapes only by its control character is found in JSON text', () => {
    const secrets = new RequestSecrets({ 'x-api-key': 'sk-inner-0123', authorization: 'Bearer sk-inner-0123-and-more', 'x-token': 'tab\there-0123' });
    assert.equal(secrets.text('key sk-inner-0123-and-more and sk-inner-0123'), 'key [redacted] and [redacted]');
    assert.equal(secrets.text(JSON.stringify({ echo: 'tab\there-0123' })), '{"echo":"[redacted]"}');
  });

  test('an unparsable inline config is kept as a hash only, and its whole text is masked elsewhere', () => {
    const raw = '{"api_key":"sk-in-broken-json-1234",';
    const secrets = new RequestSecrets({ 'x-gw-config': raw });
    assert.match(secrets.headers()['x-gw-config']!, /^sha256:/);
    assert.equal(secrets.text(`bad config ${raw}`), 'bad config [redacted]');
  });

  test('a saved config id or slug in x-gw-config is kept as is', () => {
    assert.equal(new RequestSecrets({ 'x-gw-config': 'my-config' }).headers()['x-gw-config'], 'my-config');
  });
});
