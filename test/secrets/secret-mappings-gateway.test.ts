/**
 * secret_mappings at request time, against fake Vault, AWS Secrets Manager and Azure Key Vault
 * servers: the mapped value reaches the upstream, is read once per cache period, a rotated value
 * reaches the first request after the cache time, a failing manager answers 502 naming the
 * reference, and no secret value appears in a response or a log entry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startFakeAws, startFakeAzure, startFakeVault, type FakeAws, type FakeAzure, type FakeVault } from '../helpers/fake-secret-managers.js';
import { recordLogsInto } from '../helpers/gateway-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { PUBLIC_TEST_ADDRESS, stubResolver } from '../helpers/stub-resolver.js';
import type { RequestLogEntry } from '../../core/request-log.js';

const VAULT_TOKEN = 'hvs.root-token-for-the-fake-vault';
const AWS_KEYS = { id: 'AKIAGWTEST00000001', secret: 'aws-secret-for-the-fake-0123456789' };
const ROLE = 'arn:aws:iam::123456789012:role/gw-secrets';
const CACHE_SECONDS = 60;

for (const engine of fullEngines()) {
  describe(`secret mappings in the gateway (${engine.name})`, () => {
    let app: TestApp;
    let upstream: FakeOpenAi;
    let vault: FakeVault;
    let aws: FakeAws;
    let azure: FakeAzure;
    let clock = Date.now();
    const logs: RequestLogEntry[] = [];
    const answers: string[] = [];
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    async function post(path: string, body: Record<string, unknown>) {
      const response = await app.http.post(path).set(admin()).send(body);
      answers.push(JSON.stringify(response.body));
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body as { id: string; slug: string };
    }

    /** An integration whose key comes from `reference`, and a provider on it in the default workspace. */
    async function providerWithMappedKey(name: string, reference: string, mapping: Record<string, unknown> = {}): Promise<string> {
      const integration = await post('/v1/integrations', {
        name,
        ai_provider_id: 'openai',
        workspace_access: { all_workspaces: true, workspace_ids: [] },
        secret_mappings: [{ target_field: 'key', secret_reference_id: reference, ...mapping }],
      });
      return (await post('/v1/providers', { name, integration_id: integration.id })).slug;
    }

    async function chat(providerSlug: string) {
      const response = await app.http
        .post('/v1/chat/completions')
        .set({ ...admin(), 'x-gw-provider': `@${providerSlug}` })
        .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      answers.push(JSON.stringify(response.body));
      return response;
    }

    const lastUpstreamKey = () => upstream.requests.at(-1)?.headers.authorization;

    before(async () => {
      upstream = await startFakeOpenAi();
      vault = await startFakeVault();
      vault.tokens.add(VAULT_TOKEN);
      vault.secrets.set('secret/team/openai', { api_key: 'sk-vault-first', org: 'o' });
      aws = await startFakeAws();
      aws.keys.set(AWS_KEYS.id, AWS_KEYS.secret);
      aws.secrets.set('team/openai', '{"api_key":"sk-aws-json"}');
      aws.secrets.set('team/plain', 'sk-aws-plain');
      aws.roles.set(ROLE, 'ext-42');
      azure = await startFakeAzure();
      azure.secrets.set('openai-key', 'sk-azure-kv');
      app = await startTestApp({
        engine,
        now: () => clock,
        env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_SECRET_CACHE_SECONDS: String(CACHE_SECONDS) },
        upstreamOriginOverrides: { openai: upstream.origin },
        resolveHost: stubResolver({ 'vault.example.com': [PUBLIC_TEST_ADDRESS] }),
      });
      recordLogsInto(app, logs);
    });
    after(async () => {
      const secrets = [VAULT_TOKEN, AWS_KEYS.secret, azure.client.secret, 'sk-vault-first', 'sk-vault-second', 'sk-aws-json', 'sk-aws-plain', 'sk-azure-kv'];
      const logged = JSON.stringify(logs);
      for (const secret of secrets) {
        assert.ok(!answers.some((a) => a.includes(secret)), `${secret} reached a response`);
        assert.ok(!logged.includes(secret), `${secret} reached a log entry`);
      }
      await app.close();
      await Promise.all([upstream.close(), vault.close(), aws.close(), azure.close()]);
    });

    test('Vault token auth: the mapped key reaches the upstream; rotation arrives after the cache time', async () => {
      await post('/v1/secret-references', {
        name: 'vault openai',
        manager_type: 'hashicorp_vault',
        auth_config: { vault_addr: vault.url, vault_token: VAULT_TOKEN },
        secret_path: 'secret/team/openai',
        secret_key: 'api_key',
      });
      const slug = await providerWithMappedKey('vault mapped', 'vault-openai');

      // The official OpenAI client, as users call gw.
      const client = new OpenAI({ apiKey: 'unused', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { ...admin(), 'x-gw-provider': `@${slug}` } });
      const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(lastUpstreamKey(), 'Bearer sk-vault-first');

      assert.equal((await chat(slug)).status, 200);
      assert.equal(vault.reads, 1, 'the second request is served from the secret cache');

      vault.secrets.set('secret/team/openai', { api_key: 'sk-vault-second' });
      clock += (CACHE_SECONDS - 1) * 1000;
      assert.equal((await chat(slug)).status, 200);
      assert.equal(lastUpstreamKey(), 'Bearer sk-vault-first', 'within the cache time the old value is used');

      clock += 2000;
      assert.equal((await chat(slug)).status, 200);
      assert.equal(lastUpstreamKey(), 'Bearer sk-vault-second', 'the rotated value reaches the first request after the cache time');
      assert.equal(vault.reads, 2);
    });

    test('Vault AppRole: one login, its token reused', async () => {
      await post('/v1/secret-references', {
        name: 'vault approle',
        manager_type: 'hashicorp_vault',
        auth_config: { vault_addr: vault.url, vault_role_id: vault.approle.roleId, vault_secret_id: vault.approle.secretId },
        secret_path: 'secret/team/openai',
      });
      const slug = await providerWithMappedKey('approle mapped', 'vault-approle', { secret_key: 'api_key' });
      const loginsBefore = vault.logins;
      assert.equal((await chat(slug)).status, 200);
      assert.equal(lastUpstreamKey(), 'Bearer sk-vault-second');
      clock += (CACHE_SECONDS + 1) * 1000;
      assert.equal((await chat(slug)).status, 200);
      assert.equal(vault.logins - loginsBefore, 1, 'the AppRole token is reused for its lease');
    });

    test('AWS Secrets Manager with access keys, and with an assumed role', async () => {
      await post('/v1/secret-references', {
        name: 'aws keys',
        manager_type: 'aws_sm',
        auth_config: { aws_region: 'us-east-1', aws_access_key_id: AWS_KEYS.id, aws_secret_access_key: AWS_KEYS.secret, aws_endpoint: aws.url },
        secret_path: 'team/openai',
        secret_key: 'api_key',
      });
      const keys = await providerWithMappedKey('aws keys mapped', 'aws-keys');
      assert.equal((await chat(keys)).status, 200);
      assert.equal(lastUpstreamKey(), 'Bearer sk-aws-json');
      assert.equal(aws.signers.at(-1), AWS_KEYS.id);

      await post('/v1/secret-references', {
        name: 'aws role',
        manager_type: 'aws_sm',
        auth_config: {
          aws_region: 'us-east-1',
          aws_access_key_id: AWS_KEYS.id,
          aws_secret_access_key: AWS_KEYS.secret,
          aws_role_arn: ROLE,
          aws_external_id: 'ext-42',
          aws_endpoint: aws.url,
          aws_sts_endpoint: aws.url,
        },
        secret_path: 'team/plain',
      });
      const role = await providerWithMappedKey('aws role mapped', 'aws-role');
      assert.equal((await chat(role)).status, 200);
      assert.equal(lastUpstreamKey(), 'Bearer sk-aws-plain');
      assert.equal(aws.assumed, 1);
      assert.match(aws.signers.at(-1)!, /^ASIA/, 'the read is signed with the assumed role credentials');
      assert.match(String(aws.sessionTokens.at(-1)), /^session-ASIA/);
    });

    test('Azure Key Vault with an Entra client-credentials token', async () => {
      await post('/v1/secret-references', {
        name: 'azure kv',
        manager_type: 'azure_kv',
        auth_config: {
          azure_vault_url: azure.url,
          azure_authority_host: azure.url,
          azure_entra_tenant_id: azure.tenant,
          azure_entra_client_id: azure.client.id,
          azure_entra_client_secret: azure.client.secret,
        },
        secret_path: 'openai-key',
      });
      const slug = await providerWithMappedKey('azure mapped', 'azure-kv');
      assert.equal((await chat(slug)).status, 200);
      assert.equal(lastUpstreamKey(), 'Bearer sk-azure-kv');
      const form = azure.tokenForms.at(-1)!;
      assert.equal(form.get('grant_type'), 'client_credentials');
      assert.equal(form.get('scope'), 'https://vault.azure.net/.default');
      clock += (CACHE_SECONDS + 1) * 1000;
      assert.equal((await chat(slug)).status, 200);
      assert.equal(azure.reads, 2);
      assert.equal(azure.tokensIssued, 1, 'the Entra token is reused until shortly before it expires');
    });

    test('a manager that fails answers 502 naming the reference, not the secret', async () => {
      await post('/v1/secret-references', {
        name: 'vault missing',
        manager_type: 'hashicorp_vault',
        auth_config: { vault_addr: vault.url, vault_token: 'hvs.wrong-token-not-accepted' },
        secret_path: 'secret/team/openai',
        secret_key: 'api_key',
      });
      const slug = await providerWithMappedKey('failing mapped', 'vault-missing');
      const refused = await chat(slug);
      assert.equal(refused.status, 502);
      assert.equal(refused.body.error.code, 'secret_reference_unavailable');
      assert.match(refused.body.error.message, /vault-missing/);
      assert.match(refused.body.error.message, /HTTP 403/);
      assert.ok(!refused.body.error.message.includes('hvs.wrong-token'));

      await post('/v1/secret-references', {
        name: 'vault no key',
        manager_type: 'hashicorp_vault',
        auth_config: { vault_addr: vault.url, vault_token: VAULT_TOKEN },
        secret_path: 'secret/team/openai',
        secret_key: 'absent_field',
      });
      const noKey = await chat(await providerWithMappedKey('no key mapped', 'vault-no-key'));
      assert.equal(noKey.status, 502);
      assert.match(noKey.body.error.message, /vault-no-key.*no key absent_field/);
    });
  });
}
