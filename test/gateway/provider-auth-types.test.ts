/**
 * Every integration auth type carries a chat call: each against a fake token endpoint that checks
 * the real request form, then a fake upstream that sees the issued credential. oauthClientCredentials
 * tokens are cached and refetched after a 401; Azure workload identity and Google workload identity
 * federation read the host's federated token files; Bedrock signs with an assumed role's keys.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeBedrock, type BedrockBehaviour, type FakeBedrock } from '../helpers/fake-bedrock.js';
import { startFakeGemini } from '../helpers/fake-gemini.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startFakeAws, type FakeAws } from '../helpers/fake-secret-managers.js';
import { startFakeTokenEndpoints, writeGoogleExternalAccount, type FakeTokenEndpoints } from '../helpers/fake-token-endpoints.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { SAVED_RESOURCE_TOPICS } from '../../gateway/saved-resources-store.js';

const BASE_KEYS = { id: 'AKIABASE0000000001', secret: 'base-secret-key-for-assume-role' };
const ROLE = 'arn:aws:iam::123456789012:role/gw-bedrock';
const BEDROCK_MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

for (const engine of fullEngines()) {
  describe(`integration auth types in the gateway (${engine.name})`, () => {
    let app: TestApp;
    let tokens: FakeTokenEndpoints;
    let openai: FakeOpenAi;
    let gemini: RecordingServer;
    let aws: FakeAws;
    let bedrock: FakeBedrock;
    let dir: string;
    const answers: string[] = [];
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    async function post(path: string, body: Record<string, unknown>) {
      const response = await app.http.post(path).set(admin()).send(body);
      answers.push(JSON.stringify(response.body));
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body as { id: string; slug: string };
    }

    async function providerOn(name: string, integration: Record<string, unknown>): Promise<string> {
      const created = await post('/v1/integrations', { name, workspace_access: { all_workspaces: true, workspace_ids: [] }, ...integration });
      return (await post('/v1/providers', { name, integration_id: created.id })).slug;
    }

    async function chat(slug: string, model: string) {
      const response = await app.http
        .post('/v1/chat/completions')
        .set({ ...admin(), 'x-gw-provider': `@${slug}` })
        .send({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
      answers.push(JSON.stringify(response.body));
      return response;
    }

    before(async () => {
      tokens = await startFakeTokenEndpoints();
      openai = await startFakeOpenAi();
      gemini = await startFakeGemini();
      aws = await startFakeAws();
      aws.keys.set(BASE_KEYS.id, BASE_KEYS.secret);
      aws.roles.set(ROLE, 'ext-bedrock');
      // Bedrock accepts whatever keys STS issued.
      const issuedKeys = new Proxy({} as Record<string, string>, { get: (_, id) => aws.keys.get(String(id)) });
      bedrock = await startFakeBedrock({
        credentials: issuedKeys,
        script: (): BedrockBehaviour => ({
          kind: 'converse',
          body: { output: { message: { role: 'assistant', content: [{ text: 'from bedrock' }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, metrics: { latencyMs: 1 } },
        }),
      });
      dir = mkdtempSync(path.join(tmpdir(), 'gw-identity-'));
      const azureTokenFile = path.join(dir, 'azure-token');
      writeFileSync(azureTokenFile, tokens.azure.assertion + '\n');
      const googleFile = writeGoogleExternalAccount(dir, tokens);
      app = await startTestApp({
        engine,
        env: {
          TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
          AZURE_FEDERATED_TOKEN_FILE: azureTokenFile,
          AZURE_AUTHORITY_HOST: tokens.url,
          GOOGLE_APPLICATION_CREDENTIALS: googleFile,
        },
        upstreamOriginOverrides: { openai: openai.origin, 'azure-openai': openai.origin },
      });
    });
    after(async () => {
      for (const secret of [tokens.oauthClient.secret, BASE_KEYS.secret, ...tokens.issued.oauth, ...tokens.issued.azure, ...tokens.issued.googleSa]) {
        assert.ok(!answers.some((a) => a.includes(secret)), `${secret} reached a response`);
      }
      await app.close();
      await Promise.all([tokens.close(), openai.close(), gemini.close(), aws.close(), bedrock.close()]);
      rmSync(dir, { recursive: true, force: true });
    });

    test('oauthClientCredentials: token fetched with the client-credentials form, cached, refetched after a 401', async () => {
      const slug = await providerOn('oauth openai', {
        ai_provider_id: 'openai',
        auth_type: 'oauthClientCredentials',
        configurations: {
          oauth_token_endpoint: `${tokens.url}/oauth/token`,
          oauth_client_id: tokens.oauthClient.id,
          oauth_client_secret: tokens.oauthClient.secret,
          oauth_scope: tokens.oauthClient.scope,
        },
      });
      const first = await chat(slug, 'gpt-4o-mini');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(tokens.issued.oauth.length, 1);
      assert.equal(openai.requests.at(-1)!.headers.authorization, `Bearer ${tokens.issued.oauth[0]}`);
      const form = tokens.forms.at(-1)!;
      assert.equal(form.get('grant_type'), 'client_credentials');
      assert.equal(form.get('scope'), tokens.oauthClient.scope);

      assert.equal((await chat(slug, 'gpt-4o-mini')).status, 200);
      assert.equal(tokens.issued.oauth.length, 1, 'the token is reused while it is valid');

      openai.next({ kind: 'error', status: 401, message: 'token revoked' });
      const renewed = await chat(slug, 'gpt-4o-mini');
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      assert.equal(tokens.issued.oauth.length, 2, 'a 401 fetches a new token');
      assert.equal(openai.requests.at(-1)!.headers.authorization, `Bearer ${tokens.issued.oauth[1]}`);
    });

    test('oauthClientCredentials: a token endpoint that refuses answers 502 naming it; a private endpoint is refused', async () => {
      const slug = await providerOn('oauth wrong secret', {
        ai_provider_id: 'openai',
        auth_type: 'oauthClientCredentials',
        configurations: { oauth_token_endpoint: `${tokens.url}/oauth/token`, oauth_client_id: tokens.oauthClient.id, oauth_client_secret: 'not-the-secret-at-all' },
      });
      const refused = await chat(slug, 'gpt-4o-mini');
      assert.equal(refused.status, 502);
      assert.equal(refused.body.error.code, 'provider_credential_unavailable');
      assert.match(refused.body.error.message, /OAuth token endpoint could not issue a token: it answered HTTP 401/);

      // A private token endpoint is refused when saved, with the code the token fetch would answer.
      const guarded = await app.http
        .post('/v1/integrations')
        .set(admin())
        .send({
          name: 'oauth private',
          ai_provider_id: 'openai',
          auth_type: 'oauthClientCredentials',
          configurations: { oauth_token_endpoint: 'http://127.0.0.2:9/oauth/token', oauth_client_id: 'c', oauth_client_secret: 's' },
        });
      assert.equal(guarded.status, 400, JSON.stringify(guarded.body));
      assert.deepEqual([guarded.body.error.code, guarded.body.error.param], ['provider_credential_refused', 'configurations.oauth_token_endpoint']);
      assert.match(guarded.body.error.message, /127\.0\.0\.2/);
      // One saved before this check (written straight to the store) is still refused at every call.
      const stored = await providerOn('oauth stored', { ai_provider_id: 'openai', auth_type: 'oauthClientCredentials', configurations: { oauth_token_endpoint: `${tokens.url}/oauth/token`, oauth_client_id: 'c', oauth_client_secret: 's' } });
      const row = await app.services.db('integrations').where({ name: 'oauth stored' }).first();
      const configurations = { ...(typeof row.configurations === 'string' ? JSON.parse(row.configurations) : row.configurations), oauth_token_endpoint: 'http://127.0.0.2:9/oauth/token' };
      await app.services.db('integrations').where({ id: row.id }).update({ configurations: JSON.stringify(configurations), updated_at: new Date().toISOString() });
      await app.services.bus.publish(SAVED_RESOURCE_TOPICS.integrations, row.id);
      const blocked = await chat(stored, 'gpt-4o-mini');
      assert.equal(blocked.status, 502);
      assert.match(blocked.body.error.message, /127\.0\.0\.2/);
    });

    test('Azure workload identity: the federated token exchanged at Entra, sent to Azure OpenAI as Bearer', async () => {
      const slug = await providerOn('azure workload', {
        ai_provider_id: 'azure-openai',
        auth_type: 'workload',
        configurations: {
          azure_workload_client_id: tokens.azure.clientId,
          azure_workload_tenant_id: tokens.azure.tenant,
          resource_name: 'res',
          deployment_id: 'gpt4o',
          api_version: '2024-10-21',
        },
      });
      const answer = await chat(slug, 'gpt-4o');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const sent = openai.requests.at(-1)!;
      assert.match(sent.path, /^\/openai\/deployments\/gpt4o\/chat\/completions/);
      assert.equal(sent.headers.authorization, `Bearer ${tokens.issued.azure[0]}`);
      assert.equal(sent.headers['api-key'], undefined);

      const federated = await providerOn('azure entra federated', {
        ai_provider_id: 'azure-openai',
        auth_type: 'entraFederated',
        configurations: { azure_workload_client_id: tokens.azure.clientId, azure_workload_tenant_id: tokens.azure.tenant, resource_name: 'res', deployment_id: 'gpt4o', api_version: '2024-10-21' },
      });
      assert.equal((await chat(federated, 'gpt-4o')).status, 200);
    });

    test('Google wif: STS token exchange, service account impersonation, Vertex called with the access token', async () => {
      const slug = await providerOn('vertex wif', {
        ai_provider_id: 'vertex-ai',
        auth_type: 'wif',
        configurations: { vertex_project_id: 'proj', vertex_region: 'us-central1', custom_host: gemini.url },
      });
      const answer = await chat(slug, 'gemini-2.5-pro');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const sent = gemini.received.at(-1)!;
      assert.equal(sent.path, '/v1/projects/proj/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent');
      assert.equal(sent.headers.authorization, `Bearer ${tokens.issued.googleSa[0]}`);
      assert.equal(tokens.issued.googleSts.length, 1);
    });

    test('Bedrock with aws_region and an assumed role: calls signed with the role keys', async () => {
      const slug = await providerOn('bedrock role', {
        ai_provider_id: 'bedrock',
        configurations: {
          aws_region: 'us-west-2',
          aws_access_key_id: BASE_KEYS.id,
          aws_secret_access_key: BASE_KEYS.secret,
          aws_role_arn: ROLE,
          aws_external_id: 'ext-bedrock',
          aws_sts_endpoint: aws.url,
          custom_host: bedrock.url,
        },
      });
      const answer = await chat(slug, BEDROCK_MODEL);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.choices[0].message.content, 'from bedrock');
      const received = bedrock.received.at(-1)!;
      assert.equal(received.signature.valid, true, received.signature.reason);
      assert.match(received.signature.accessKeyId!, /^ASIA/);
      assert.equal(received.signature.region, 'us-west-2');
      assert.match(String(received.headers['x-amz-security-token']), /^session-ASIA/);
      assert.equal(aws.assumed, 1);
      assert.equal((await chat(slug, BEDROCK_MODEL)).status, 200);
      assert.equal(aws.assumed, 1, 'the role keys are reused until shortly before they expire');

      const keysOnly = await providerOn('bedrock keys', {
        ai_provider_id: 'bedrock',
        configurations: { aws_region: 'us-west-2', aws_access_key_id: BASE_KEYS.id, aws_secret_access_key: BASE_KEYS.secret, custom_host: bedrock.url },
      });
      assert.equal((await chat(keysOnly, BEDROCK_MODEL)).status, 200);
      assert.equal(bedrock.received.at(-1)!.signature.accessKeyId, BASE_KEYS.id);
    });
  });
}
