/**
 * JWT authentication: tokens verified against two key sets on loopback (merged), key rotation
 * without a restart, the refusals (expired, wrong audience, unknown key, alg none, forged), claims
 * named by settings, scopes cut to the user's role, and the JWT's user in audit and request logs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { base64url, type JWTPayload } from 'jose';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { newSigningKey, signJwt, startJwksServer, type JwksServer, type SigningKey } from '../helpers/jwks-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeUser } from '../admin/people.js';
import { addMcpServer, gwClient } from '../mcp/mcp-fixtures.js';

const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'gw-api';

for (const engine of fullEngines()) {
  describe(`JWT authentication (${engine.name})`, () => {
    let app: TestApp;
    let fake: FakeOpenAi;
    let mcp: FakeMcpServer;
    let primary: JwksServer;
    let secondary: JwksServer;
    let rsaKey: SigningKey;
    let ecKey: SigningKey;
    let clock = Date.parse('2026-11-23T10:00:00.000Z');
    const seconds = () => Math.floor(clock / 1000);

    const claims = (extra: JWTPayload = {}): JWTPayload => ({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'alice',
      email: 'alice@corp.example',
      gw_org: 'default',
      gw_role: 'admin',
      permissions: ['workspaces.create', 'workspaces.list', 'workspaces.read', 'audit_logs.list', 'completions.write', 'logs.list', 'logs.view'],
      iat: seconds(),
      exp: seconds() + 600,
      ...extra,
    });

    before(async () => {
      rsaKey = await newSigningKey('rsa-1', 'RS256');
      ecKey = await newSigningKey('ec-1', 'ES256');
      primary = await startJwksServer([rsaKey]);
      secondary = await startJwksServer([ecKey]);
      fake = await startFakeOpenAi();
      mcp = await startFakeMcpServer({ name: 'jwt-mcp' });
      app = await startTestApp({
        engine,
        now: () => clock,
        env: {
          TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
          JWT_JWKS_URL: `${primary.url}, ${secondary.url}`,
          JWT_ISSUER: ISSUER,
          JWT_AUDIENCE: AUDIENCE,
          JWT_CLAIM_ORGANISATION: 'gw_org',
          JWT_CLAIM_ROLE: 'gw_role',
          JWT_CLAIM_SCOPES: 'permissions',
        },
      });
    });
    after(async () => {
      await app.close();
      await fake.close();
      await mcp.close();
      await primary.close();
      await secondary.close();
    });

    test('a token from either key set is accepted, in Authorization and in x-gw-api-key', async () => {
      const fromRsa = await signJwt(rsaKey, claims());
      const fromEc = await signJwt(ecKey, claims({ sub: 'bob', email: 'bob@corp.example' }));
      const listed = await app.http.get('/v1/workspaces').set('authorization', `Bearer ${fromRsa}`);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.equal((await app.http.get('/v1/workspaces').set('x-gw-api-key', fromEc)).status, 200);
      // Both sets were fetched (in parallel, once) and merged.
      assert.equal(primary.fetches, 1);
      assert.equal(secondary.fetches, 1);
    });

    test('GET /v1/auth/key is for API keys: a JWT is told to use /v1/auth/self', async () => {
      const token = await signJwt(rsaKey, claims());
      const refused = await app.http.get('/v1/auth/key').set('authorization', `Bearer ${token}`);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'api_key_required');
      assert.match(refused.body.error.message, /\/v1\/auth\/self/);
    });

    test('refused: expired, not yet valid, wrong audience or issuer, unknown key, alg none, forged signature, no expiry', async () => {
      const refused = async (token: string, code = 'invalid_jwt') => {
        const response = await app.http.get('/v1/workspaces').set('authorization', `Bearer ${token}`);
        assert.equal(response.status, 401, JSON.stringify(response.body));
        assert.equal(response.body.error.code, code);
        return response.body.error.message as string;
      };
      await refused(await signJwt(rsaKey, claims({ iat: seconds() - 7200, exp: seconds() - 3600 })), 'expired_jwt');
      await refused(await signJwt(rsaKey, claims({ nbf: seconds() + 3600 })));
      assert.match(await refused(await signJwt(rsaKey, claims({ aud: 'someone-else' }))), /aud/);
      assert.match(await refused(await signJwt(rsaKey, claims({ iss: 'https://evil.example' }))), /iss/);
      const { exp: _exp, ...withoutExp } = claims();
      await refused(await signJwt(rsaKey, withoutExp));

      const stranger = await newSigningKey('rsa-stranger', 'RS256');
      await refused(await signJwt(stranger, claims()));
      // A key set's kid on a token another key signed: the signature does not verify.
      await refused(await signJwt({ ...stranger, kid: rsaKey.kid }, claims()));

      const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify(claims()))}.`;
      await refused(unsigned);
      // A valid token whose payload was edited afterwards.
      const [header, , signature] = (await signJwt(rsaKey, claims({ gw_role: 'member' }))).split('.');
      await refused(`${header}.${base64url.encode(JSON.stringify(claims({ gw_role: 'owner' })))}.${signature}`);
    });

    test('rotation: a new key is fetched on its first unknown kid, at most once per cooldown', async () => {
      const rotated = await newSigningKey('rsa-2', 'RS256');
      primary.keys = [rotated];
      clock += 31_000;
      const before = primary.fetches;
      const token = await signJwt(rotated, claims({ sub: 'carol' }));
      assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${token}`)).status, 200);
      assert.equal(primary.fetches, before + 1);

      // Within the cooldown, tokens with unknown kids cause no further fetches.
      const unknown = await newSigningKey('rsa-3', 'RS256');
      for (let i = 0; i < 3; i++) {
        const forged = await signJwt(unknown, claims({ sub: `mallory-${i}` }));
        assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${forged}`)).status, 401);
      }
      assert.equal(primary.fetches, before + 1);

      // After the cooldown, a rotation to that key is picked up; the retired key no longer verifies.
      primary.keys = [unknown];
      clock += 31_000;
      const later = await signJwt(unknown, claims({ sub: 'dave' }));
      assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${later}`)).status, 200);
      assert.equal(primary.fetches, before + 2);
      clock += 601_000;
      const retired = await signJwt(rotated, claims({ sub: 'erin' }));
      assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${retired}`)).status, 401);
    });

    test("scopes never exceed the user's role, from the token's role claim or the known user's gw role", async () => {
      const key = (await newSigningKey('rsa-scopes', 'RS256')) as SigningKey;
      primary.keys = [...primary.keys, key];
      clock += 31_000;
      // A workspace member asks for api_keys.list: the role does not allow it; a workspace manager's does.
      const asked = { permissions: ['api_keys.list', 'workspaces.list'] };
      const member = await signJwt(key, claims({ ...asked, sub: 'mia', gw_role: 'member', workspace_id: 'default', workspace_role: 'member' }));
      const refused = await app.http.get('/v1/api-keys').set('authorization', `Bearer ${member}`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'missing_scope');
      const manager = await signJwt(key, claims({ ...asked, sub: 'max', gw_role: 'member', workspace_id: 'default', workspace_role: 'manager' }));
      assert.equal((await app.http.get('/v1/api-keys').set('authorization', `Bearer ${manager}`)).status, 200);
      assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${member}`)).status, 200);
      // A member's token without a workspace holds nothing organisation-wide.
      const nowhere = await signJwt(key, claims({ sub: 'mia', gw_role: 'member' }));
      assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${nowhere}`)).status, 403);

      // A known gw user is held to their gw role, whatever the token's role claim says; removal ends their tokens.
      const known = await makeUser(app, 'member');
      const claimsAdmin = await signJwt(key, claims({ sub: 'ext-123', email: known.email, gw_role: 'owner' }));
      assert.equal((await app.http.post('/v1/workspaces').set('authorization', `Bearer ${claimsAdmin}`).send({ name: 'Nope' })).status, 403);
      await app.http.put(`/v1/admin/users/${known.id}`).set('x-gw-api-key', app.adminKey).send({ role: 'admin' });
      const promoted = await app.http.post('/v1/workspaces').set('authorization', `Bearer ${claimsAdmin}`).send({ name: 'Promoted' });
      assert.equal(promoted.status, 201, JSON.stringify(promoted.body));
      assert.equal((await app.http.delete(`/v1/admin/users/${known.id}`).set('x-gw-api-key', app.adminKey)).status, 200);
      const gone = await app.http.get('/v1/workspaces').set('authorization', `Bearer ${claimsAdmin}`);
      assert.equal(gone.status, 401);
      assert.equal(gone.body.error.code, 'user_inactive');
      // An unknown role value is refused outright.
      assert.equal((await app.http.get('/v1/workspaces').set('authorization', `Bearer ${await signJwt(key, claims({ gw_role: 'superuser' }))}`)).status, 401);
    });

    test("the JWT's user is recorded in the audit log and in request logs", async () => {
      const key = await newSigningKey('rsa-logs', 'RS256');
      primary.keys = [...primary.keys, key];
      clock += 31_000;
      const token = await signJwt(key, claims({ sub: 'auditor-7' }));
      const created = await app.http.post('/v1/workspaces').set('authorization', `Bearer ${token}`).send({ name: 'By JWT' });
      assert.equal(created.status, 201);
      const audit = await app.http.get('/v1/audit-logs').query({ actor_id: 'auditor-7' }).set('x-gw-api-key', app.adminKey);
      assert.equal(audit.status, 200);
      assert.equal(audit.body.data.length, 1);
      assert.deepEqual(audit.body.data[0].actor, { user_id: null, api_key_id: null, credential: 'jwt', subject: 'auditor-7' });

      const chat = await app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': token, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url, authorization: 'Bearer sk-upstream', 'x-gw-trace-id': 'jwt-chat' })
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(chat.status, 200, JSON.stringify(chat.body));
      await app.services.requestLogs.flush();
      const logs = await app.http.get('/v1/logs').query({ trace_id: 'jwt-chat' }).set('x-gw-api-key', app.adminKey);
      assert.equal(logs.body.data.length, 1);
      assert.equal(logs.body.data[0].auth_subject, 'auditor-7');
      assert.equal(logs.body.data[0].api_key_id, null);
    });

    test('a JWT with mcp.invoke calls tools on the MCP gateway, its user in the tool-call log; without the scope it is refused', async () => {
      await addMcpServer(app, { url: mcp.url, slug: 'jwt-tools' });
      const key = await newSigningKey('rsa-mcp', 'RS256');
      primary.keys = [...primary.keys, key];
      clock += 31_000;
      const token = await signJwt(key, claims({ sub: 'tool-user-9', permissions: ['mcp.invoke'] }));
      const { client } = await gwClient(app.url, 'jwt-tools', { authorization: `Bearer ${token}`, 'x-gw-trace-id': 'jwt-mcp-call' });
      const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      assert.deepEqual(sum.content, [{ type: 'text', text: '3' }]);
      await client.close();
      const viaHeader = await gwClient(app.url, 'jwt-tools', { 'x-gw-api-key': token });
      assert.deepEqual((await viaHeader.client.listTools()).tools.map((tool) => tool.name).sort(), ['add', 'delete_everything', 'echo', 'fail', 'slow']);
      await viaHeader.client.close();
      await app.services.requestLogs.flush();
      const logs = await app.http.get('/v1/logs').query({ endpoint: 'mcp', trace_id: 'jwt-mcp-call' }).set('x-gw-api-key', app.adminKey);
      assert.equal(logs.status, 200, JSON.stringify(logs.body));
      assert.equal(logs.body.data.length, 1);
      assert.equal(logs.body.data[0].model, 'add');
      assert.equal(logs.body.data[0].auth_subject, 'tool-user-9');
      assert.equal(logs.body.data[0].api_key_id, null);

      const noScope = await signJwt(key, claims({ sub: 'tool-user-9', permissions: ['logs.list'] }));
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
      const refused = await app.http.post('/jwt-tools/mcp').set({ authorization: `Bearer ${noScope}`, accept: 'application/json, text/event-stream' }).send(initialize);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'missing_scope');
    });

    test('a JWT with the assistants and threads scopes creates and runs a thread on /v1/threads/runs', async () => {
      const key = await newSigningKey('rsa-runs', 'RS256');
      primary.keys = [...primary.keys, key];
      clock += 31_000;
      const token = await signJwt(key, claims({ sub: 'runner-3', permissions: ['assistants.write', 'assistants.read', 'threads.write', 'threads.read'] }));
      const openai = new OpenAI({ apiKey: 'sk-upstream', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': token, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url } });
      const assistant = await openai.beta.assistants.create({ model: 'gpt-4o-mini', instructions: 'Answer briefly.' });
      const run = await openai.beta.threads.createAndRunPoll({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'Run as a JWT' }] } }, { pollIntervalMs: 20 });
      assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
      const messages = await openai.beta.threads.messages.list(run.thread_id, { order: 'asc' });
      assert.equal(messages.data.length, 2);
      assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-upstream');
      await app.services.requestLogs.flush();
      const turn = await app.http.get('/v1/logs').query({ trace_id: run.id }).set('x-gw-api-key', app.adminKey);
      assert.equal(turn.body.data.length, 1, 'the turn is logged');
      assert.equal(turn.body.data[0].auth_subject, 'runner-3');

      const readOnly = await signJwt(key, claims({ sub: 'runner-3', permissions: ['assistants.read', 'threads.read'] }));
      const refused = await app.http
        .post('/v1/threads/runs')
        .set({ 'x-gw-api-key': readOnly, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url, authorization: 'Bearer sk-upstream' })
        .send({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'no' }] } });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'missing_scope');
    });
  });
}

describe('JWT key-set URLs pass the address guard', () => {
  test('an untrusted loopback key set is never fetched, so its tokens are refused', async () => {
    const key = await newSigningKey('guarded', 'RS256');
    const jwks = await startJwksServer([key]);
    const app = await startTestApp({ env: { JWT_JWKS_URL: jwks.url, JWT_ISSUER: ISSUER } });
    try {
      const token = await signJwt(key, { iss: ISSUER, sub: 'x', role: 'owner', scope: 'workspaces.list', exp: Math.floor(Date.now() / 1000) + 60 });
      const response = await app.http.get('/v1/workspaces').set('authorization', `Bearer ${token}`);
      assert.equal(response.status, 401);
      assert.equal(jwks.fetches, 0);
      // API keys are unaffected.
      assert.equal((await app.http.get('/v1/workspaces').set('x-gw-api-key', app.adminKey)).status, 200);
    } finally {
      await app.close();
      await jwks.close();
    }
  });
});
