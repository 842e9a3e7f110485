/**
 * The official openai client with nothing but baseURL and the gw key: when the provider comes
 * from a saved provider, a config or the workspace default, `Authorization: Bearer <gw key>` is
 * the gw key; with an inline provider it stays the provider's key. Refusals name the header read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';

describe('the gw key in Authorization', () => {
  let gw: GatewayApp;
  let client: OpenAI;
  before(async () => {
    gw = await startGatewayApp();
    const created = await gw.app.http
      .post('/v1/providers')
      .set('x-gw-api-key', gw.app.adminKey)
      .send({ name: 'Fake OpenAI', slug: 'fake-openai', ai_provider_id: 'openai', key: 'sk-saved', configurations: { custom_host: gw.fake.url } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const config = await gw.app.http.post('/v1/configs').set('x-gw-api-key', gw.app.adminKey).send({ name: 'Saved route', slug: 'saved-route', config: { virtual_key: 'fake-openai' } });
    assert.equal(config.status, 201, JSON.stringify(config.body));
    client = new OpenAI({ baseURL: `${gw.app.url}/v1`, apiKey: gw.app.adminKey, maxRetries: 0 });
  });
  after(() => gw.close());

  it('new OpenAI({ baseURL, apiKey: gw key }) with model "@slug/gpt-4o" works with no other header, and the gw key never goes upstream', async () => {
    const { data, response } = await client.chat.completions.create({ model: '@fake-openai/gpt-4o', messages: [{ role: 'user', content: 'ping' }] }).withResponse();
    assert.equal(data.choices[0]!.message.content, 'You said: ping');
    assert.equal(response.headers.get('x-gw-provider'), 'openai');
    const upstream = gw.fake.requests.at(-1)!;
    assert.equal(upstream.headers.authorization, 'Bearer sk-saved');
    assert.equal(upstream.body.model, 'gpt-4o');
  });

  it('works the same with x-gw-provider: @slug, and with a saved config', async () => {
    const viaHeader = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a' }] }, { headers: { 'x-gw-provider': '@fake-openai' } });
    assert.equal(viaHeader.choices[0]!.message.content, 'You said: a');
    const viaConfig = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'b' }] }, { headers: { 'x-gw-config': 'saved-route' } });
    assert.equal(viaConfig.choices[0]!.message.content, 'You said: b');
    assert.equal(gw.fake.requests.at(-1)!.headers.authorization, 'Bearer sk-saved');
  });

  it('a bearer that is no gw key gets 401 naming the Authorization header', async () => {
    const stranger = new OpenAI({ baseURL: `${gw.app.url}/v1`, apiKey: 'sk-not-a-gw-key', maxRetries: 0 });
    await assert.rejects(stranger.chat.completions.create({ model: '@fake-openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.AuthenticationError);
      assert.equal(error.status, 401);
      assert.match(error.message, /Invalid gw API key \(read from the Authorization header\)/);
      return true;
    });
  });

  it('an unknown x-gw-api-key gets 401 naming that header', async () => {
    const response = await gw.app.http.post('/v1/chat/completions').set({ 'x-gw-api-key': 'gw-unknown-key-0123456789', 'x-gw-provider': '@fake-openai' }).send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(response.status, 401);
    assert.match(response.body.error.message, /read from the x-gw-api-key header/);
  });

  it('with an inline provider Authorization stays the provider key: the gw key must come in x-gw-api-key', async () => {
    const response = await gw.app.http
      .post('/v1/chat/completions')
      .set({ authorization: `Bearer ${gw.app.adminKey}`, 'x-gw-provider': 'openai', 'x-gw-custom-host': gw.fake.url })
      .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(response.status, 401);
    assert.equal(response.body.error.code, 'missing_api_key');
    assert.match(response.body.error.message, /x-gw-api-key header \(Authorization carries the provider key/);
    const sent = gw.fake.requests.filter((request) => request.headers.authorization === `Bearer ${gw.app.adminKey}`);
    assert.equal(sent.length, 0, 'the gw key was never sent upstream');
  });

  it('when x-gw-api-key is sent it is the gw key, and Authorization is not read as one', async () => {
    const response = await gw.app.http
      .post('/v1/chat/completions')
      .set({ 'x-gw-api-key': gw.app.adminKey, authorization: 'Bearer whatever-the-client-had', 'x-gw-provider': '@fake-openai' })
      .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'y' }] });
    assert.equal(response.status, 200);
  });

  it('nothing at all: 401 saying where the key goes', async () => {
    const response = await gw.app.http.post('/v1/chat/completions').set({ 'x-gw-provider': '@fake-openai' }).send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(response.status, 401);
    assert.match(response.body.error.message, /x-gw-api-key header or as Authorization: Bearer/);
  });

  it('GET /v1/models with the same client', async () => {
    const models = await client.models.list();
    assert.ok(models.data.length > 0);
  });
});
