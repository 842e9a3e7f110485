import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { PUBLIC_TEST_ADDRESS, stubResolver } from '../helpers/stub-resolver.js';

const resolveHost = stubResolver({ 'vault.example.com': [PUBLIC_TEST_ADDRESS], 'v.example.com': [PUBLIC_TEST_ADDRESS], 'kv.example.com': [PUBLIC_TEST_ADDRESS], 'kv.vault.azure.net': [PUBLIC_TEST_ADDRESS], 'vault.internal.example': ['192.168.4.4'] });
import { rawTable } from '../admin/admin-fixtures.js';

const VAULT_TOKEN = 'hvs.vault-token-0123456789abcdef';
const AZURE_SECRET = 'azure-entra-secret-0123456789';
const AWS_SECRET = 'aws-secret-access-key-0123456789';

for (const engine of fullEngines()) {
  describe(`secret references (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const bodies: string[] = [];
    const send = async (method: 'post' | 'put' | 'get' | 'delete', path: string, body?: unknown) => {
      const request = app.http[method](path).set(admin());
      const response = body === undefined ? await request : await request.send(body as object);
      bodies.push(JSON.stringify(response.body));
      return response;
    };
    const vault = (extra: Record<string, unknown> = {}) => ({
      name: 'Vault OpenAI',
      manager_type: 'hashicorp_vault',
      auth_config: { vault_addr: 'https://vault.example.com', vault_token: VAULT_TOKEN },
      secret_path: 'secret/team/openai',
      secret_key: 'api_key',
      ...extra,
    });

    before(async () => {
      app = await startTestApp({ engine, resolveHost });
    });
    after(async () => {
      for (const secret of [VAULT_TOKEN, AZURE_SECRET, AWS_SECRET]) assert.ok(!bodies.some((b) => b.includes(secret)), `${secret} leaked`);
      await app.close();
    });

    test('create, get, list, update: auth secrets sealed at rest and masked in every answer', async () => {
      const created = await send('post', '/v1/secret-references', vault({ tags: { team: 'ml' } }));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.object, 'secret-reference');
      assert.equal(created.body.slug, 'vault-openai');
      assert.equal(created.body.status, 'ACTIVE');
      assert.equal(created.body.allow_all_workspaces, true);
      assert.equal(created.body.auth_config.vault_token, 'hvs.********cdef');
      assert.equal(created.body.auth_config.vault_addr, 'https://vault.example.com');
      assert.ok(!(await rawTable(app, 'secret_references')).includes(VAULT_TOKEN));

      const azure = await send('post', '/v1/secret-references', {
        name: 'Azure',
        slug: 'azure-kv',
        manager_type: 'azure_kv',
        auth_config: { azure_vault_url: 'https://kv.vault.azure.net', azure_entra_tenant_id: 't', azure_entra_client_id: 'c', azure_entra_client_secret: AZURE_SECRET },
        secret_path: 'openai-key',
      });
      assert.equal(azure.status, 201);
      const aws = await send('post', '/v1/secret-references', {
        name: 'AWS',
        manager_type: 'aws_sm',
        auth_config: { aws_region: 'us-east-1', aws_access_key_id: 'AKIA1', aws_secret_access_key: AWS_SECRET, aws_role_arn: 'arn:aws:iam::123456789012:role/r' },
        secret_path: 'team/openai',
      });
      assert.equal(aws.status, 201);

      const fetched = await send('get', '/v1/secret-references/vault-openai');
      assert.equal(fetched.body.id, created.body.id);
      const listed = await send('get', '/v1/secret-references?manager_type=azure_kv');
      assert.deepEqual(listed.body.data.map((r: { slug: string }) => r.slug), ['azure-kv']);
      const searched = await send('get', '/v1/secret-references?search=vault');
      assert.deepEqual(searched.body.data.map((r: { slug: string }) => r.slug), ['vault-openai']);

      // Left-out and masked-back secrets keep their value; other fields merge.
      const updated = await send('put', `/v1/secret-references/${created.body.id}`, {
        auth_config: { vault_token: created.body.auth_config.vault_token, vault_namespace: 'team' },
        secret_path: 'secret/team/openai2',
      });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.auth_config.vault_namespace, 'team');
      assert.equal(updated.body.auth_config.vault_token, 'hvs.********cdef');
      assert.equal(updated.body.secret_path, 'secret/team/openai2');
      const row = await app.services.db('secret_references').where({ id: created.body.id }).first();
      assert.ok(app.services.secrets.open(row.secrets).includes(VAULT_TOKEN));
    });

    test('each manager needs its own fields; fields of another manager are refused', async () => {
      const noToken = await send('post', '/v1/secret-references', vault({ name: 'x', auth_config: { vault_addr: 'https://vault.example.com' } }));
      assert.equal(noToken.status, 400);
      assert.equal(noToken.body.error.param, 'auth_config.vault_role_id');
      const approle = await send('post', '/v1/secret-references', vault({ name: 'approle', auth_config: { vault_addr: 'https://v.example.com', vault_role_id: 'r', vault_secret_id: 's' } }));
      assert.equal(approle.status, 201);
      const mixed = await send('post', '/v1/secret-references', vault({ name: 'mixed', auth_config: { vault_addr: 'https://v.example.com', vault_token: 't', aws_region: 'us-east-1' } }));
      assert.equal(mixed.status, 400);
      assert.equal(mixed.body.error.param, 'auth_config.aws_region');
      const azure = await send('post', '/v1/secret-references', { name: 'az', manager_type: 'azure_kv', auth_config: { azure_vault_url: 'https://kv.example.com' }, secret_path: 'x' });
      assert.equal(azure.status, 400);
      assert.equal(azure.body.error.param, 'auth_config.azure_entra_tenant_id');
    });

    test('manager addresses pass the outbound address guard', async () => {
      // A name that resolves to a private address is refused at save, as the connection would refuse it.
      for (const address of ['http://127.0.0.2:8200', 'http://2130706434', 'http://0x7f000002', 'http://[::1]:8200', 'http://localhost:8200', 'http://169.254.169.254', 'https://vault.internal.example']) {
        const refused = await send('post', '/v1/secret-references', vault({ name: `guard ${address}`, auth_config: { vault_addr: address, vault_token: 't' } }));
        assert.equal(refused.status, 400, address);
        assert.equal(refused.body.error.param, 'auth_config.vault_addr');
        assert.equal(refused.body.error.code, 'secret_manager_refused');
      }
      const awsEndpoint = await send('post', '/v1/secret-references', {
        name: 'aws guard',
        manager_type: 'aws_sm',
        auth_config: { aws_region: 'us-east-1', aws_access_key_id: 'a', aws_secret_access_key: 'b', aws_endpoint: 'http://10.0.0.1' },
        secret_path: 'x',
      });
      assert.equal(awsEndpoint.status, 400);
      assert.equal(awsEndpoint.body.error.param, 'auth_config.aws_endpoint');
    });

    test('secret_mappings: an unknown reference is refused at save; a used reference cannot be deleted', async () => {
      const unknown = await send('post', '/v1/integrations', {
        name: 'mapped unknown',
        ai_provider_id: 'openai',
        secret_mappings: [{ target_field: 'key', secret_reference_id: 'no-such-reference' }],
      });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.param, 'secret_mappings[0].secret_reference_id');
      assert.equal(unknown.body.error.code, 'secret_reference_not_found');

      const badField = await send('post', '/v1/integrations', {
        name: 'bad field',
        ai_provider_id: 'openai',
        secret_mappings: [{ target_field: 'password', secret_reference_id: 'vault-openai' }],
      });
      assert.equal(badField.status, 400);

      // The mapping fills `key`, so apiKey's "key is required" is met; the slug is stored as the id.
      const reference = await send('get', '/v1/secret-references/vault-openai');
      const integration = await send('post', '/v1/integrations', {
        name: 'mapped',
        ai_provider_id: 'openai',
        secret_mappings: [{ target_field: 'key', secret_reference_id: 'vault-openai' }],
      });
      assert.equal(integration.status, 201, JSON.stringify(integration.body));
      assert.equal(integration.body.secret_mappings[0].secret_reference_id, reference.body.id);

      const provider = await send('post', '/v1/providers', {
        name: 'own mapping',
        ai_provider_id: 'openai',
        secret_mappings: [{ target_field: 'key', secret_reference_id: 'azure-kv' }],
      });
      assert.equal(provider.status, 201, JSON.stringify(provider.body));

      const inUse = await send('delete', `/v1/secret-references/${reference.body.id}`);
      assert.equal(inUse.status, 409);
      assert.equal(inUse.body.error.code, 'secret_reference_in_use');
      assert.equal((await send('delete', '/v1/secret-references/azure-kv')).status, 409);

      assert.equal((await send('delete', `/v1/integrations/${integration.body.id}`)).status, 200);
      const deleted = await send('delete', `/v1/secret-references/${reference.body.id}`);
      assert.equal(deleted.status, 200);
      assert.equal((await send('get', `/v1/secret-references/${reference.body.id}`)).status, 404);
      assert.equal((await send('delete', `/v1/providers/${provider.body.id}`)).status, 200);
      assert.equal((await send('delete', '/v1/secret-references/azure-kv')).status, 200);
    });

    test('workspace access: a provider may map only a reference its workspace may use', async () => {
      const workspace = await send('post', '/v1/workspaces', { name: 'Secret WS' });
      assert.equal(workspace.status, 201, JSON.stringify(workspace.body));
      const other = await send('post', '/v1/workspaces', { name: 'Other WS' });
      const limited = await send('post', '/v1/secret-references', vault({ name: 'limited', allowed_workspaces: [other.body.id] }));
      assert.equal(limited.status, 201);
      assert.equal(limited.body.allow_all_workspaces, false);
      assert.deepEqual(limited.body.allowed_workspaces, [other.body.id]);
      const refused = await send('post', '/v1/providers', {
        name: 'p',
        workspace_id: workspace.body.id,
        ai_provider_id: 'openai',
        secret_mappings: [{ target_field: 'key', secret_reference_id: 'limited' }],
      });
      assert.equal(refused.status, 403);
      const allowed = await send('post', '/v1/providers', {
        name: 'p',
        workspace_id: other.body.id,
        ai_provider_id: 'openai',
        secret_mappings: [{ target_field: 'key', secret_reference_id: 'limited' }],
      });
      assert.equal(allowed.status, 201);
    });
  });
}
