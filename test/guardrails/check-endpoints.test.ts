import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { findGuardrailCheck } from '../../gateway/guardrails/checks/index.js';
import { guardedCheckTools } from '../../gateway/guardrails/guarded-fetch.js';
import { ApiError, ValidationError } from '../../core/errors.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from '../helpers/recording-server.js';
import { checkContext, inputSubject, outputSubject, runCheck } from './check-fixtures.js';

type Responder = (request: RecordedRequest) => { status?: number; headers?: Record<string, string>; body?: unknown } | 'hang';

/** One loopback server for the file; each test picks the answer by path. */
let server: RecordingServer;
const routes = new Map<string, Responder>();

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => assert.fail('the check did not throw'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof ApiError, String(error));
  return error;
}

function route(path: string, responder: Responder): string {
  routes.set(path, responder);
  return `${server.url}${path}`;
}

const hits = (path: string) => server.received.filter((request) => request.path === path);

/** A port on 127.0.0.1 with nothing listening. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

before(async () => {
  server = await startRecordingServer((request, res) => {
    const responder = routes.get(request.path);
    const answer = responder ? responder(request) : { status: 404, body: { error: 'no route' } };
    if (answer === 'hang') return;
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {}));
  });
});
after(() => server.close());

describe('default.webhook', () => {
  it('POSTs the input event with its headers and takes a passing verdict', async () => {
    const url = route('/hook/pass', () => ({ body: { verdict: true, data: { score: 0.1 } } }));
    const subject = inputSubject('hello', {
      metadata: { _user: 'u1' },
      headers: { 'x-request-id': 'req-7', 'x-tenant': 't1', authorization: 'Bearer provider-key' },
    });
    const result = await runCheck('default.webhook', { webhookURL: url, headers: { 'x-hook-secret': 's3cret' }, forwardHeaders: ['x-request-id'] }, subject);
    assert.equal(result.verdict, true);
    assert.deepEqual(result.data, { score: 0.1 });
    assert.equal(result.transformedText, undefined);

    const [sent] = hits('/hook/pass');
    assert.equal(sent?.method, 'POST');
    assert.equal(sent?.headers['content-type'], 'application/json');
    assert.equal(sent?.headers['x-hook-secret'], 's3cret');
    assert.equal(sent?.headers['x-request-id'], 'req-7');
    assert.equal(sent?.headers['x-tenant'], undefined, 'only the named headers are forwarded');
    assert.equal(sent?.headers.authorization, undefined);
    assert.deepEqual(sent?.body, {
      request: subject.request,
      response: null,
      metadata: { _user: 'u1' },
      phase: 'input',
      eventType: 'beforeRequestHook',
      requestType: 'chatComplete',
    });
  });

  it('sends the answer in the output phase and reports a failing verdict', async () => {
    const url = route('/hook/fail', () => ({ body: { verdict: false, data: { reason: 'off topic' } } }));
    const subject = outputSubject('The answer.');
    const result = await runCheck('default.webhook', { webhookURL: url }, subject);
    assert.equal(result.verdict, false);
    assert.deepEqual(result.data, { reason: 'off topic' });
    const body = hits('/hook/fail')[0]?.body;
    assert.equal(body?.eventType, 'afterRequestHook');
    assert.equal(body?.phase, 'output');
    assert.deepEqual(body?.response, subject.completion);
  });

  it('returns transformed text from transformedData', async () => {
    const url = route('/hook/transform', () => ({ body: { verdict: true, transformedData: { text: 'hello, [name]' } } }));
    const result = await runCheck('default.webhook', { webhookURL: url }, inputSubject('hello, Ada'));
    assert.equal(result.verdict, true);
    assert.equal(result.transformedText, 'hello, [name]');
  });

  it('throws on a timeout, a non-2xx answer, an answer without a verdict and an unreachable host', async () => {
    const slow = route('/hook/slow', () => 'hang');
    const timeout = await failure(runCheck('default.webhook', { webhookURL: slow, timeout: 50 }, inputSubject('hi')));
    assert.equal(timeout.status, 504);
    assert.equal(timeout.code, 'guardrail_check_timeout');
    assert.equal(timeout.param, 'parameters.webhookURL');
    assert.match(timeout.message, /within 50 ms/);

    const broken = route('/hook/500', () => ({ status: 500, body: { error: 'boom' } }));
    const status = await failure(runCheck('default.webhook', { webhookURL: broken }, inputSubject('hi')));
    assert.equal(status.status, 502);
    assert.equal(status.code, 'guardrail_check_failed');
    assert.match(status.message, /HTTP 500/);

    for (const [path, body] of [['/hook/no-verdict', { verdict: 'yes' }], ['/hook/not-json', 'verdict: true'], ['/hook/bad-transform', { verdict: true, transformedData: 'x' }]] as const) {
      const error = await failure(runCheck('default.webhook', { webhookURL: route(path, () => ({ body })) }, inputSubject('hi')));
      assert.equal(error.code, 'guardrail_check_failed', path);
    }

    const down = await failure(runCheck('default.webhook', { webhookURL: `http://127.0.0.1:${await closedPort()}/hook` }, inputSubject('hi')));
    assert.equal(down.status, 502);
    assert.match(down.message, /could not be reached/);
  });

  it('does not follow redirects, whose target was never vetted', async () => {
    const target = route('/hook/redirect-target', () => ({ body: { verdict: true } }));
    const redirect = route('/hook/redirect', () => ({ status: 302, headers: { location: target } }));
    const error = await failure(runCheck('default.webhook', { webhookURL: redirect }, inputSubject('hi')));
    assert.match(error.message, /HTTP 302, a redirect/);
    assert.equal(hits('/hook/redirect-target').length, 0);
  });

  it('refuses private and untrusted loopback URLs before sending anything', async () => {
    const { port } = new URL(server.url);
    const before = server.received.length;
    for (const webhookURL of [
      `http://127.0.0.2:${port}/hook`,
      `http://0x7f000002:${port}/hook`,
      `http://2130706434:${port}/hook`,
      `http://[::1]:${port}/hook`,
      `http://localhost:${port}/hook`,
      'https://private.test/hook',
      'file:///etc/passwd',
    ]) {
      const error = await failure(runCheck('default.webhook', { webhookURL }, inputSubject('hi')));
      assert.equal(error.status, 400, webhookURL);
      assert.equal(error.code, 'unsafe_guardrail_url', webhookURL);
      assert.equal(error.param, 'parameters.webhookURL', webhookURL);
    }
    assert.equal(server.received.length, before);
  });

  it('runs on pass-through requests only with executeOnProxy, and then sends method, path and content type', async () => {
    const url = route('/hook/proxy', () => ({ body: { verdict: true } }));
    const proxied = inputSubject('', { requestType: 'proxy', proxy: { method: 'POST', path: '/v1/embeddings', contentType: 'application/json' } });
    const skipped = await runCheck('default.webhook', { webhookURL: url }, proxied);
    assert.equal(skipped.verdict, true);
    assert.deepEqual(skipped.data, { skipped: true });
    assert.equal(hits('/hook/proxy').length, 0);

    await runCheck('default.webhook', { webhookURL: url, executeOnProxy: true }, proxied);
    const body = hits('/hook/proxy')[0]?.body;
    assert.equal(body?.method, 'POST');
    assert.equal(body?.path, '/v1/embeddings');
    assert.equal(body?.contentType, 'application/json');
    assert.equal(body?.requestType, 'proxy');

    // A chat request never carries pass-through fields, even with the opt-in.
    await runCheck('default.webhook', { webhookURL: url, executeOnProxy: true }, inputSubject('hi'));
    assert.equal(hits('/hook/proxy')[1]?.body?.method, undefined);
  });

  it('refuses restricted forwardHeaders and bad parameters when saved', () => {
    const check = findGuardrailCheck('default.webhook')!;
    assert.throws(
      () => check.assertParameters!({ webhookURL: 'https://hooks.example.com', forwardHeaders: ['x-request-id', 'Cookie'] }, 'checks[0].parameters'),
      (error: unknown) => error instanceof ValidationError && error.param === 'checks[0].parameters.forwardHeaders[1]' && error.code === 'restricted_forward_header',
    );
    assert.doesNotThrow(() => check.assertParameters!({ webhookURL: 'https://hooks.example.com', forwardHeaders: ['x-request-id'] }, 'checks[0].parameters'));
  });
});

describe('checks with the gateway guarded fetch', () => {
  it('reach a trusted loopback endpoint, and are refused an untrusted one and redirects', async () => {
    const context = { ...checkContext(), ...guardedCheckTools({ trustedHosts: ['127.0.0.1'], maxAnswerBytes: 32 * 1024 * 1024, resolve: async () => ['10.0.0.1'] }) };
    const url = route('/hook/guarded', () => ({ body: { verdict: false } }));
    assert.equal((await runCheck('default.webhook', { webhookURL: url }, inputSubject('hi'), context)).verdict, false);
    assert.equal(hits('/hook/guarded').length, 1);

    const refused = await failure(runCheck('default.webhook', { webhookURL: url.replace('127.0.0.1', '127.0.0.2') }, inputSubject('hi'), context));
    assert.equal(refused.status, 400);
    assert.equal(refused.param, 'parameters.webhookURL');

    const redirect = route('/hook/guarded-redirect', () => ({ status: 307, headers: { location: url } }));
    assert.match((await failure(runCheck('default.webhook', { webhookURL: redirect }, inputSubject('hi'), context))).message, /HTTP 307/);
    assert.equal(hits('/hook/guarded').length, 1);
  });
  it('an answer past GW_MAX_UPSTREAM_ANSWER_BYTES fails the check with 502 upstream_answer_too_large', async () => {
    const context = { ...checkContext(), ...guardedCheckTools({ trustedHosts: ['127.0.0.1'], maxAnswerBytes: 1024, resolve: async () => ['10.0.0.1'] }) };
    const small = route('/hook/small', () => ({ body: { verdict: true, note: 'x'.repeat(500) } }));
    assert.equal((await runCheck('default.webhook', { webhookURL: small }, inputSubject('hi'), context)).verdict, true);
    const big = route('/hook/big', () => ({ body: { verdict: true, note: 'x'.repeat(10_000) } }));
    const refused = await failure(runCheck('default.webhook', { webhookURL: big }, inputSubject('hi'), context));
    assert.equal(refused.status, 502);
    assert.equal(refused.code, 'upstream_answer_too_large');
    assert.match(refused.message, /answered more than 1024 bytes, the most gw reads from another server \(GW_MAX_UPSTREAM_ANSWER_BYTES\)/);
  });
});

describe('default.log', () => {
  it('POSTs the event, pass-through details included, and passes whatever the answer says', async () => {
    const url = route('/log', () => ({ body: { verdict: false } }));
    const subject = outputSubject('Answer', { requestType: 'proxy', proxy: { method: 'GET', path: '/v1/files', contentType: undefined } });
    const result = await runCheck('default.log', { logURL: url, headers: { 'x-log-token': 'abc' } }, subject);
    assert.equal(result.verdict, true);
    const [sent] = hits('/log');
    assert.equal(sent?.headers['x-log-token'], 'abc');
    assert.equal(sent?.body?.eventType, 'afterRequestHook');
    assert.equal(sent?.body?.path, '/v1/files');
    assert.equal(sent?.body?.contentType, null);
  });

  it('throws when the event cannot be delivered', async () => {
    const error = await failure(runCheck('default.log', { logURL: route('/log/503', () => ({ status: 503 })) }, inputSubject('hi')));
    assert.equal(error.param, 'parameters.logURL');
    assert.equal(error.code, 'guardrail_check_failed');
    const refused = await failure(runCheck('default.log', { logURL: 'http://0x7f000002/log' }, inputSubject('hi')));
    assert.equal(refused.status, 400);
  });
});

describe('default.jwt', () => {
  const now = checkContext().now();
  const nowSeconds = Math.floor(now / 1000);
  let signingKey: CryptoKey;
  let otherKey: CryptoKey;
  let publicJwk: JWK;
  let otherPublicJwk: JWK;

  before(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    const other = await generateKeyPair('RS256', { extractable: true });
    signingKey = pair.privateKey;
    otherKey = other.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    otherPublicJwk = { ...(await exportJWK(other.publicKey)), kid: 'k2', alg: 'RS256', use: 'sig' };
  });

  function token(claims: { exp?: number; iss?: string; aud?: string } = {}, key = signingKey, kid = 'k1'): Promise<string> {
    return new SignJWT({ scope: 'chat' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject('user-1')
      .setIssuer(claims.iss ?? 'https://idp.example.com')
      .setAudience(claims.aud ?? 'gw')
      .setIssuedAt(nowSeconds - 10)
      .setExpirationTime(claims.exp ?? nowSeconds + 300)
      .sign(key);
  }

  const withToken = (value: string, header = 'authorization') => inputSubject('hi', { headers: { [header]: value } });

  it('passes a valid token from a fetched key set, and fails expired, foreign and missing tokens', async () => {
    const jwksUri = route('/jwks/basic', () => ({ body: { keys: [publicJwk] } }));
    const params = { jwksUri, issuer: 'https://idp.example.com', audience: 'gw' };

    const valid = await runCheck('default.jwt', params, withToken(`Bearer ${await token()}`));
    assert.equal(valid.verdict, true, valid.explanation);
    assert.deepEqual(valid.data, { sub: 'user-1', iss: 'https://idp.example.com' });

    const expired = await runCheck('default.jwt', params, withToken(`Bearer ${await token({ exp: nowSeconds - 60 })}`));
    assert.equal(expired.verdict, false);
    assert.deepEqual(expired.data, { code: 'ERR_JWT_EXPIRED' });

    const forged = await runCheck('default.jwt', params, withToken(`Bearer ${await token({}, otherKey)}`));
    assert.equal(forged.verdict, false);
    assert.deepEqual(forged.data, { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });

    const wrongAudience = await runCheck('default.jwt', params, withToken(`Bearer ${await token({ aud: 'someone-else' })}`));
    assert.deepEqual(wrongAudience.data, { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });

    const missing = await runCheck('default.jwt', params, inputSubject('hi'));
    assert.equal(missing.verdict, false);
    assert.deepEqual(missing.data, { code: 'ERR_JWT_MISSING' });

    const garbage = await runCheck('default.jwt', params, withToken('Bearer not.a.jwt'));
    assert.equal(garbage.verdict, false);

    assert.equal(hits('/jwks/basic').length, 1, 'the key set is fetched once and cached');
  });

  it('honours algorithms, clock tolerance, a custom header and an inline key set', async () => {
    const jwks = { keys: [publicJwk] };
    const fresh = await token();
    assert.deepEqual((await runCheck('default.jwt', { jwks, algorithms: ['ES256'] }, withToken(fresh))).data, { code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
    assert.equal((await runCheck('default.jwt', { jwks, headerKey: 'X-User-Token' }, withToken(fresh, 'x-user-token'))).verdict, true);
    const justExpired = await token({ exp: nowSeconds - 5 });
    assert.equal((await runCheck('default.jwt', { jwks }, withToken(justExpired))).verdict, false);
    assert.equal((await runCheck('default.jwt', { jwks, clockTolerance: 30 }, withToken(justExpired))).verdict, true);
  });

  it('refetches the key set after cacheMaxAge, and once for an unknown key after the cooldown', async () => {
    let served: JWK[] = [publicJwk];
    const jwksUri = route('/jwks/rotating', () => ({ body: { keys: served } }));
    let clock = now;
    const context = checkContext({ now: () => clock });
    const check = findGuardrailCheck('default.jwt')!;
    const params = { jwksUri, cacheMaxAge: 60 };

    assert.equal((await check.run(params, withToken(await token()), context)).verdict, true);
    served = [otherPublicJwk];
    const rotated = withToken(await token({}, otherKey, 'k2'));
    // Within the cooldown an unknown kid does not trigger a fetch.
    clock = now + 10_000;
    assert.deepEqual((await check.run(params, rotated, context)).data, { code: 'ERR_JWKS_NO_MATCHING_KEY' });
    assert.equal(hits('/jwks/rotating').length, 1);
    // After the cooldown it does, once, and the new key verifies.
    clock = now + 31_000;
    assert.equal((await check.run(params, rotated, context)).verdict, true);
    assert.equal(hits('/jwks/rotating').length, 2);
    // After cacheMaxAge the set is fetched again even for a known key.
    clock = now + 31_000 + 61_000;
    assert.equal((await check.run(params, rotated, context)).verdict, true);
    assert.equal(hits('/jwks/rotating').length, 3);
  });

  it('throws when the key set cannot be had, and retries on the next request', async () => {
    let healthy = false;
    const jwksUri = route('/jwks/flaky', () => (healthy ? { body: { keys: [publicJwk] } } : { status: 500 }));
    const error = await failure(runCheck('default.jwt', { jwksUri }, withToken(await token())));
    assert.equal(error.param, 'parameters.jwksUri');
    assert.equal(error.code, 'guardrail_check_failed');
    healthy = true;
    assert.equal((await runCheck('default.jwt', { jwksUri }, withToken(await token()))).verdict, true);

    const notAKeySet = route('/jwks/nonsense', () => ({ body: { hello: 'world' } }));
    assert.match((await failure(runCheck('default.jwt', { jwksUri: notAKeySet }, withToken(await token())))).message, /not a JSON Web Key Set/);

    const refused = await failure(runCheck('default.jwt', { jwksUri: 'http://127.0.0.2/jwks' }, withToken(await token())));
    assert.equal(refused.status, 400);
    assert.equal(refused.param, 'parameters.jwksUri');
  });

  it('needs exactly one key source and a well-formed inline set', () => {
    const check = findGuardrailCheck('default.jwt')!;
    const at = 'checks[0].parameters';
    const rejects = (params: Record<string, unknown>, param: string) =>
      assert.throws(() => check.assertParameters!(params, at), (error: unknown) => error instanceof ValidationError && error.param === param);
    rejects({}, `${at}.jwksUri`);
    rejects({ jwksUri: 'https://idp.example.com/jwks', jwks: { keys: [publicJwk] } }, `${at}.jwksUri`);
    rejects({ jwks: { keys: 'none' } }, `${at}.jwks`);
    assert.doesNotThrow(() => check.assertParameters!({ jwks: { keys: [publicJwk] } }, at));
  });
});
