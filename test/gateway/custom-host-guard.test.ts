/**
 * The outbound address guard on the real chat path: a custom host on a loopback address that
 * the operator did not trust is refused before any connection; TRUSTED_CUSTOM_HOSTS lets one
 * through. Only loopback addresses are used, and names are answered by a stubbed resolver (the
 * app's resolveHost, the one the hot path and saves share), never by real DNS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { PUBLIC_TEST_ADDRESS } from '../helpers/stub-resolver.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

/** What the untrusting app's resolver answers; a test changes it to play a DNS record that changed after a save. */
const dns: Record<string, string[]> = {};
async function resolveHost(hostname: string): Promise<string[]> {
  const answer = dns[hostname.toLowerCase()];
  if (!answer) throw Object.assign(new Error(`the test resolver does not know ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
}

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] };

function customHostCall(app: TestApp, customHost: string) {
  return app.http
    .post('/v1/chat/completions')
    .set('x-gw-api-key', ADMIN_KEY)
    .set('x-gw-provider', 'openai')
    .set('authorization', 'Bearer sk-test')
    .set('x-gw-custom-host', customHost)
    .send(chat);
}

describe('custom hosts on the chat path', () => {
  let fake: FakeOpenAi;
  let trusting: TestApp;
  let untrusting: TestApp;
  let port: string;

  before(async () => {
    fake = await startFakeOpenAi();
    port = new URL(fake.url).port;
    trusting = await startTestApp({ env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
    untrusting = await startTestApp({ resolveHost });
  });
  after(async () => {
    await trusting?.close();
    await untrusting?.close();
    await fake?.close();
  });

  it('refuses loopback custom hosts that are not trusted, without calling them', async () => {
    const before = fake.requests.length;
    for (const app of [untrusting, trusting]) {
      for (const host of [`http://127.0.0.2:${port}/v1`, `http://2130706434:${port}/v1`, `http://localhost:${port}/v1`, `http://[::ffff:127.0.0.2]:${port}/v1`]) {
        const response = await customHostCall(app, host);
        assert.ok(response.status >= 400 && response.status < 500, `${host}: ${response.status} ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.param, 'x-gw-custom-host', host);
        assert.equal(response.body.error.type, 'invalid_request_error', host);
        assert.match(response.body.error.message, /non-public address|reserved host name/, host);
        assert.match(response.body.error.message, /^x-gw-custom-host points to .*TRUSTED_CUSTOM_HOSTS/, host);
      }
    }
    // 127.0.0.1 is trusted only by the app that lists it.
    const refused = await customHostCall(untrusting, fake.url);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.param, 'x-gw-custom-host');
    assert.equal(fake.requests.length, before, 'the fake upstream saw no request');
  });

  it('sends the call to a host listed in TRUSTED_CUSTOM_HOSTS', async () => {
    const response = await customHostCall(trusting, fake.url);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.object, 'chat.completion');
    assert.equal(fake.requests.at(-1)!.path, '/v1/chat/completions');
    assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-test');
  });

  it('the hot path resolves custom hosts with the injected resolver: a name private.example resolving to 10.0.0.7 is refused', async () => {
    dns['private.example'] = ['10.0.0.7'];
    const response = await customHostCall(untrusting, 'https://private.example/v1');
    assert.equal(response.status, 400, JSON.stringify(response.body));
    assert.deepEqual([response.body.error.code, response.body.error.param], ['custom_host_refused', 'x-gw-custom-host']);
    assert.match(response.body.error.message, /private\.example, which resolves to the non-public address 10\.0\.0\.7/);
  });

  it('a refusal names where the host came from: a saved provider (its name re-pointed after the save), a config target', async () => {
    const refusedHost = `http://127.0.0.2:${port}/v1`;
    dns['lab.example'] = [PUBLIC_TEST_ADDRESS];
    const saved = await untrusting.http
      .post('/v1/providers')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({ name: 'Lab', slug: 'lab', ai_provider_id: 'openai', key: 'sk-lab', custom_host: `http://lab.example:${port}/v1` });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    dns['lab.example'] = ['127.0.0.2'];
    const before = fake.requests.length;

    // The official client, with only the gw key: the model names the saved provider.
    const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${untrusting.url}/v1`, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: '@lab/gpt-4o-mini', messages: chat.messages as never }).then(
      () => assert.fail('a non-public custom host must be refused'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    const body = error.error as { code: string; message: string; param: string };
    assert.equal(body.code, 'custom_host_refused');
    assert.equal(body.param, 'custom_host');
    assert.match(body.message, /^the custom_host of saved provider @lab points to lab\.example, which resolves to the non-public address 127\.0\.0\.2/);
    assert.match(body.message, /TRUSTED_CUSTOM_HOSTS/);
    assert.doesNotMatch(body.message, /x-gw-custom-host/);

    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-test', custom_host: refusedHost });
    const inline = await untrusting.http.post('/v1/chat/completions').set({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-config': config }).send(chat);
    assert.equal(inline.status, 400);
    assert.equal(inline.body.error.param, 'custom_host');
    assert.match(inline.body.error.message, /^the config target's custom_host points to .*TRUSTED_CUSTOM_HOSTS/);
    assert.equal(fake.requests.length, before, 'the fake upstream saw no request');
  });

  it('a saved provider with a top-level custom_host on a trusted host serves the official client', async () => {
    const saved = await trusting.http
      .post('/v1/providers')
      .set('x-gw-api-key', ADMIN_KEY)
      .send({ name: 'Local', slug: 'local', ai_provider_id: 'openai', key: 'sk-local', custom_host: fake.url });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    assert.equal(saved.body.custom_host, fake.url);
    const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${trusting.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: '@local/gpt-4o-mini', messages: chat.messages as never });
    assert.equal(completion.object, 'chat.completion');
    assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-local');
  });
});
