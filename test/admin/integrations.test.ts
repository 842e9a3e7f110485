import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { EXAMPLE_NAMES, stubResolver } from '../helpers/stub-resolver.js';
import { INTEGRATION_SCOPES, PROVIDER_SCOPES, rawTable, workspaceWithKey } from './admin-fixtures.js';

const API_KEY = 'sk-integration-secret-0123456789';
const OAUTH_SECRET = 'oauth-client-secret-abcdefghijkl';
const AWS_SECRET = 'aws-secret-access-key-zyxwvutsrq';

for (const engine of fullEngines()) {
  describe(`integrations (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    let bodies: string[] = [];
    const create = async (body: Record<string, unknown>, headers = admin()) => {
      const response = await app.http.post('/v1/integrations').set(headers).send(body);
      bodies.push(JSON.stringify(response.body));
      return response;
    };

    before(async () => {
      app = await startTestApp({ engine, resolveHost: stubResolver(EXAMPLE_NAMES) });
    });
    after(async () => {
      // No secret value ever appeared in any response body of this suite.
      for (const secret of [API_KEY, OAUTH_SECRET, AWS_SECRET]) assert.ok(!bodies.some((b) => b.includes(secret)), `${secret} leaked`);
      await app.close();
    });

    test('apiKey integration: key encrypted at rest and only masked in answers', async () => {
      const created = await create({ name: 'OpenAI prod', ai_provider_id: 'openai', key: API_KEY, pricing_adjustments: { multiplier: 1.25 } });
      assert.equal(created.status, 201);
      assert.equal(created.body.slug, 'openai-prod');
      assert.equal(created.body.auth_type, 'apiKey');
      assert.equal(created.body.masked_key, 'sk-i********6789');
      assert.deepEqual(created.body.pricing_adjustments, { multiplier: 1.25 });
      const raw = await rawTable(app, 'integrations');
      assert.ok(!raw.includes(API_KEY), 'the raw row must not hold the key');
      const row = await app.services.db('integrations').where({ id: created.body.id }).first();
      assert.match(row.secrets, /^v1:/);
      assert.ok(app.services.secrets.open(row.secrets).includes(API_KEY));

      const fetched = await app.http.get(`/v1/integrations/${created.body.id}`).set(admin());
      bodies.push(JSON.stringify(fetched.body));
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.masked_key, created.body.masked_key);
      const bySlug = await app.http.get('/v1/integrations/openai-prod').set(admin());
      assert.equal(bySlug.body.id, created.body.id);
    });

    test('oauthClientCredentials needs endpoint, client id and secret; the secret is masked and kept on update', async () => {
      const missing = await create({
        name: 'oauth missing',
        ai_provider_id: 'openai',
        auth_type: 'oauthClientCredentials',
        configurations: { oauth_token_endpoint: 'https://login.example.com/token', oauth_client_id: 'client' },
      });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'configurations.oauth_client_secret');

      const created = await create({
        name: 'oauth',
        ai_provider_id: 'azure-openai',
        auth_type: 'oauthClientCredentials',
        configurations: {
          oauth_token_endpoint: 'https://login.example.com/token',
          oauth_client_id: 'client',
          oauth_client_secret: OAUTH_SECRET,
          oauth_scope: 'api://gw/.default',
          resource_name: 'res',
        },
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.configurations.oauth_client_secret, 'oaut********ijkl');
      assert.equal(created.body.configurations.oauth_scope, 'api://gw/.default');
      assert.ok(!(await rawTable(app, 'integrations')).includes(OAUTH_SECRET));

      const updated = await app.http
        .put(`/v1/integrations/${created.body.id}`)
        .set(admin())
        .send({ configurations: { oauth_token_endpoint: 'https://login.example.com/v2/token', oauth_client_id: 'client2' } });
      bodies.push(JSON.stringify(updated.body));
      assert.equal(updated.status, 200);
      assert.equal(updated.body.configurations.oauth_client_id, 'client2');
      const row = await app.services.db('integrations').where({ id: created.body.id }).first();
      assert.ok(app.services.secrets.open(row.secrets).includes(OAUTH_SECRET), 'a left-out secret keeps its value');
    });

    test('workload needs the Azure workload client and tenant ids; wif and entraFederated need no key', async () => {
      const missing = await create({ name: 'wl', ai_provider_id: 'azure-openai', auth_type: 'workload', configurations: { azure_workload_client_id: 'c' } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'configurations.azure_workload_tenant_id');
      const workload = await create({
        name: 'wl',
        ai_provider_id: 'azure-openai',
        auth_type: 'workload',
        configurations: { azure_workload_client_id: 'c', azure_workload_tenant_id: 't' },
      });
      assert.equal(workload.status, 201);
      assert.equal(workload.body.configurations.azure_workload_tenant_id, 't');
      for (const authType of ['wif', 'entraFederated']) {
        const federated = await create({ name: authType, ai_provider_id: 'vertex-ai', auth_type: authType, configurations: { vertex_project_id: 'p', vertex_region: 'us-central1' } });
        assert.equal(federated.status, 201, JSON.stringify(federated.body));
        assert.equal(federated.body.auth_type, authType);
      }
      const noKey = await create({ name: 'no key', ai_provider_id: 'openai' });
      assert.equal(noKey.status, 400);
      assert.equal(noKey.body.error.param, 'key');
    });

    test('bedrock apiKey takes aws_region and the AWS key pair, secret masked', async () => {
      const noRegion = await create({ name: 'br', ai_provider_id: 'bedrock', configurations: { aws_access_key_id: 'AKIA1', aws_secret_access_key: AWS_SECRET } });
      assert.equal(noRegion.status, 400);
      assert.equal(noRegion.body.error.param, 'configurations.aws_region');
      const created = await create({
        name: 'br',
        ai_provider_id: 'bedrock',
        configurations: { aws_access_key_id: 'AKIA1', aws_secret_access_key: AWS_SECRET, aws_region: 'us-east-1' },
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.configurations.aws_region, 'us-east-1');
      assert.notEqual(created.body.configurations.aws_secret_access_key, AWS_SECRET);
    });

    test('rejections: bad URLs, long names and slugs, unknown fields, bad value_format, bad multiplier', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'u', ai_provider_id: 'openai', key: 'k', configurations: { custom_host: 'not a url' } }, 'configurations.custom_host'],
        [{ name: 'u', ai_provider_id: 'openai', key: 'k', configurations: { custom_host: 'ftp://files.example.com' } }, 'configurations.custom_host'],
        [
          { name: 'u', ai_provider_id: 'openai', auth_type: 'oauthClientCredentials', configurations: { oauth_token_endpoint: 'javascript:alert(1)', oauth_client_id: 'c', oauth_client_secret: 's' } },
          'configurations.oauth_token_endpoint',
        ],
        [{ name: 'x'.repeat(256), ai_provider_id: 'openai', key: 'k' }, 'name'],
        [{ name: 'n', slug: 's'.repeat(256), ai_provider_id: 'openai', key: 'k' }, 'slug'],
        [{ name: 'n', ai_provider_id: 'openai', key: 'k', colour: 'red' }, 'colour'],
        [{ name: 'n', ai_provider_id: 'openai', key: 'k', secret_mappings: [{ target_field: 'key', secret_reference_id: 'ref', value_format: 'yaml' }] }, 'secret_mappings[0].value_format'],
        [{ name: 'n', ai_provider_id: 'openai', key: 'k', pricing_adjustments: { multiplier: 0 } }, 'pricing_adjustments.multiplier'],
        [{ name: 'n', ai_provider_id: 'openai', auth_type: 'password', key: 'k' }, 'auth_type'],
      ];
      for (const [body, param] of cases) {
        const response = await create(body);
        assert.equal(response.status, 400, `${param}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.param, param);
      }
      const slug255 = await create({ name: 'n'.repeat(255), slug: 'a'.repeat(255), ai_provider_id: 'openai', key: 'k' });
      assert.equal(slug255.status, 201);
      const taken = await create({ name: 'again', slug: 'a'.repeat(255), ai_provider_id: 'openai', key: 'k' });
      assert.equal(taken.status, 409);
    });

    test('secret_mappings with value_format string or json are kept, references stored by id', async () => {
      const ids: Record<string, string> = {};
      for (const slug of ['vault-openai', 'vault-aws']) {
        const reference = await app.http.post('/v1/secret-references').set(admin()).send({
          name: slug,
          slug,
          manager_type: 'hashicorp_vault',
          auth_config: { vault_addr: 'https://vault.example.com', vault_token: 'hvs.token-for-mappings-test' },
          secret_path: 'secret/x',
        });
        assert.equal(reference.status, 201);
        ids[slug] = reference.body.id;
      }
      const mappings = [
        { target_field: 'key', secret_reference_id: 'vault-openai', value_format: 'string' },
        { target_field: 'configurations.aws_secret_access_key', secret_reference_id: 'vault-aws', value_format: 'json' },
      ];
      const created = await create({ name: 'mapped', ai_provider_id: 'openai', key: 'k', secret_mappings: mappings });
      assert.equal(created.status, 201);
      assert.deepEqual(
        created.body.secret_mappings,
        mappings.map((mapping) => ({ ...mapping, secret_reference_id: ids[mapping.secret_reference_id] })),
      );
    });

    test('workspace access decides which workspaces may build providers on an integration', async () => {
      const team = await workspaceWithKey(app, 'team-int', [...PROVIDER_SCOPES, ...INTEGRATION_SCOPES]);
      const other = await workspaceWithKey(app, 'other-int', [...PROVIDER_SCOPES, ...INTEGRATION_SCOPES]);
      const created = await create({ name: 'team only', ai_provider_id: 'openai', key: API_KEY, workspace_access: { all_workspaces: false, workspace_ids: ['team-int'] } });
      assert.equal(created.status, 201);
      assert.deepEqual(created.body.workspace_access, { all_workspaces: false, workspace_ids: [team.workspaceId] });

      const allowed = await app.http.post('/v1/providers').set({ 'x-gw-api-key': team.key }).send({ name: 'p', integration_id: 'team-only' });
      bodies.push(JSON.stringify(allowed.body));
      assert.equal(allowed.status, 201);
      const refused = await app.http.post('/v1/providers').set({ 'x-gw-api-key': other.key }).send({ name: 'p', integration_id: created.body.id });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'integration_not_allowed');
      assert.equal((await app.http.get(`/v1/integrations/${created.body.id}`).set({ 'x-gw-api-key': other.key })).status, 404);
      const refusedByAdmin = await app.http.post('/v1/providers').set(admin()).send({ name: 'p', workspace_id: 'other-int', integration_id: created.body.id });
      assert.equal(refusedByAdmin.status, 403);
      assert.equal(refusedByAdmin.body.error.code, 'integration_not_allowed');

      const otherList = await app.http.get('/v1/integrations').set({ 'x-gw-api-key': other.key });
      assert.ok(!otherList.body.data.some((i: { id: string }) => i.id === created.body.id));
      const teamList = await app.http.get('/v1/integrations').set({ 'x-gw-api-key': team.key });
      assert.ok(teamList.body.data.some((i: { id: string }) => i.id === created.body.id));

      const widened = await app.http.put(`/v1/integrations/${created.body.id}/workspaces`).set(admin()).send({ all_workspaces: false, workspace_ids: [team.workspaceId, 'other-int'] });
      assert.equal(widened.status, 200);
      assert.deepEqual(new Set(widened.body.workspace_ids), new Set([team.workspaceId, other.workspaceId]));
      const nowAllowed = await app.http.post('/v1/providers').set({ 'x-gw-api-key': other.key }).send({ name: 'p', integration_id: created.body.id });
      assert.equal(nowAllowed.status, 201);
      const read = await app.http.get(`/v1/integrations/${created.body.id}/workspaces`).set(admin());
      assert.equal(read.body.workspace_ids.length, 2);

      // Workspace keys read integrations but never change them.
      const write = await create({ name: 'mine', ai_provider_id: 'openai', key: 'k' }, { 'x-gw-api-key': team.key });
      assert.equal(write.status, 403);
      const edit = await app.http.put(`/v1/integrations/${created.body.id}`).set({ 'x-gw-api-key': team.key }).send({ name: 'x' });
      assert.equal(edit.status, 403);

      const inUse = await app.http.delete(`/v1/integrations/${created.body.id}`).set(admin());
      assert.equal(inUse.status, 409);
      assert.equal(inUse.body.error.code, 'integration_in_use');
    });

    test('integration models: per-model custom_headers and custom_host reach the gateway lookup', async () => {
      const created = await create({ name: 'models', ai_provider_id: 'openai', key: API_KEY, workspace_access: { all_workspaces: true, workspace_ids: [] }, pricing_adjustments: { multiplier: 2 } });
      const models = [
        { slug: 'gpt-4o', custom_headers: { 'x-team': 'blue' }, configurations: { custom_host: 'https://llm.example.com/v1' } },
        { slug: 'gpt-4o-mini', enabled: false },
      ];
      const put = await app.http.put(`/v1/integrations/${created.body.id}/integration-models`).set(admin()).send({ models });
      assert.equal(put.status, 200);
      assert.deepEqual(put.body.data, models);
      const listed = await app.http.get(`/v1/integrations/${created.body.id}/integration-models`).set(admin());
      assert.deepEqual(listed.body.data, models);

      const badHost = await app.http
        .put(`/v1/integrations/${created.body.id}/integration-models`)
        .set(admin())
        .send({ models: [{ slug: 'm', configurations: { custom_host: 'no-scheme.example.com' } }] });
      assert.equal(badHost.status, 400);
      assert.equal(badHost.body.error.param, 'models[0].configurations.custom_host');
      const badHeader = await app.http
        .put(`/v1/integrations/${created.body.id}/integration-models`)
        .set(admin())
        .send({ models: [{ slug: 'm', custom_headers: { 'bad header': 'x' } }] });
      assert.equal(badHeader.status, 400);

      const provider = await app.http.post('/v1/providers').set(admin()).send({ name: 'modelled', integration_id: created.body.id });
      assert.equal(provider.status, 201);
      const saved = await app.services.savedResources.provider(app.boot.organisationId, app.boot.workspaceId, '@modelled');
      assert.ok(saved);
      assert.equal(saved.target.apiKey, API_KEY);
      assert.equal(saved.pricing_multiplier, 2);
      assert.deepEqual(saved.models, { 'gpt-4o': { custom_headers: { 'x-team': 'blue' }, custom_host: 'https://llm.example.com/v1' } });
    });

    test('delete: an unused integration goes away', async () => {
      const created = await create({ name: 'short lived', ai_provider_id: 'openai', key: 'k' });
      const deleted = await app.http.delete(`/v1/integrations/${created.body.id}`).set(admin());
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body, { id: created.body.id, object: 'integration', deleted: true });
      assert.equal((await app.http.get(`/v1/integrations/${created.body.id}`).set(admin())).status, 404);
      bodies = bodies.slice();
    });
  });
}
