import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { leakWatch } from '../helpers/leak-watch.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { EXAMPLE_NAMES, stubResolver } from '../helpers/stub-resolver.js';
import { PROVIDER_SCOPES, rawTable, workspaceWithKey } from './admin-fixtures.js';

const PROVIDER_KEY = 'sk-provider-own-secret-0123456789';
const INTEGRATION_KEY = 'sk-integration-for-providers-9876';
const AWS_SECRET = 'aws-provider-secret-key-abcdefghij';

for (const engine of fullEngines()) {
  describe(`providers and virtual keys (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const watch = leakWatch(() => app);
    const call = watch.call;

    before(async () => {
      app = await startTestApp({ engine, resolveHost: stubResolver(EXAMPLE_NAMES) });
    });
    after(async () => {
      watch.assertNothingLeaked([PROVIDER_KEY, INTEGRATION_KEY, AWS_SECRET]);
      await app.close();
    });

    test('a provider with its own key: sealed at rest, masked in answers, decrypted for the gateway', async () => {
      const created = await call('post', '/v1/providers', admin(), { name: 'Team OpenAI', ai_provider_id: 'openai', key: PROVIDER_KEY, note: 'for CI' });
      assert.equal(created.status, 201);
      assert.equal(created.body.slug, 'team-openai');
      assert.equal(created.body.workspace_id, app.boot.workspaceId);
      assert.equal(created.body.masked_key, 'sk-p********6789');
      assert.equal(created.body.configurations, undefined, 'configurations only with include_configurations');
      assert.ok(!(await rawTable(app, 'providers')).includes(PROVIDER_KEY));

      const saved = await app.services.savedResources.provider(app.boot.organisationId, app.boot.workspaceId, '@team-openai');
      assert.equal(saved?.target.provider, 'openai');
      assert.equal(saved?.target.apiKey, PROVIDER_KEY);
    });

    test('cloud fields of azure-openai, vertex-ai and bedrock providers map to the adapter target', async () => {
      const azure = await call('post', '/v1/providers', admin(), {
        name: 'az',
        ai_provider_id: 'azure-openai',
        key: PROVIDER_KEY,
        configurations: { resource_name: 'res', deployment_id: 'dep', api_version: '2024-10-21' },
      });
      assert.equal(azure.status, 201);
      const vertex = await call('post', '/v1/providers', admin(), { name: 'vx', ai_provider_id: 'vertex-ai', key: PROVIDER_KEY, configurations: { vertex_project_id: 'proj', vertex_region: 'europe-west4' } });
      assert.equal(vertex.status, 201);
      const bedrock = await call('post', '/v1/providers', admin(), {
        name: 'br',
        ai_provider_id: 'bedrock',
        configurations: { aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: AWS_SECRET, aws_region: 'eu-west-1' },
      });
      assert.equal(bedrock.status, 201);
      const lookup = (slug: string) => app.services.savedResources.provider(app.boot.organisationId, app.boot.workspaceId, slug);
      assert.deepEqual((await lookup('az'))?.target.azure, { resourceName: 'res', deploymentId: 'dep', apiVersion: '2024-10-21' });
      assert.deepEqual((await lookup('vx'))?.target.vertex, { projectId: 'proj', region: 'europe-west4' });
      assert.deepEqual((await lookup('br'))?.target.bedrock, { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: AWS_SECRET, sessionToken: undefined, region: 'eu-west-1' });
      assert.ok(!(await rawTable(app, 'providers')).includes(AWS_SECRET));
    });

    test('custom_host at the top level is kept in configurations.custom_host and echoed as custom_host', async () => {
      const host = 'https://llm-proxy.example.com/v1';
      const created = await call('post', '/v1/providers', admin(), { name: 'proxied', ai_provider_id: 'azure-openai', key: PROVIDER_KEY, custom_host: host, configurations: { resource_name: 'res', api_version: '2024-10-21' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.custom_host, host);
      const system = await call('get', `/v1/providers/${created.body.id}?include_configurations=true`, admin());
      assert.deepEqual(system.body.configurations, { resource_name: 'res', api_version: '2024-10-21', custom_host: host });
      const lookup = () => app.services.savedResources.provider(app.boot.organisationId, app.boot.workspaceId, 'proxied');
      assert.equal((await lookup())?.target.customHost, host);

      // Sent in configurations, it is echoed the same way; list and get agree.
      const inConfigurations = await call('post', '/v1/providers', admin(), { name: 'proxied two', ai_provider_id: 'openai', key: PROVIDER_KEY, configurations: { custom_host: host } });
      assert.equal(inConfigurations.body.custom_host, host);
      const listed = await call('get', '/v1/providers?limit=100', admin());
      assert.equal(listed.body.data.find((p: { slug: string }) => p.slug === 'proxied-two').custom_host, host);
      const plain = await call('post', '/v1/providers', admin(), { name: 'no host', ai_provider_id: 'openai', key: PROVIDER_KEY });
      assert.equal(plain.body.custom_host, null);

      // An update with only custom_host keeps the other configurations and the key.
      const moved = 'https://other-proxy.example.com';
      const updated = await call('put', `/v1/providers/${created.body.id}`, admin(), { custom_host: moved });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.custom_host, moved);
      assert.equal(updated.body.masked_key, 'sk-p********6789');
      const afterMove = await call('get', `/v1/providers/${created.body.id}?include_configurations=true`, admin());
      assert.deepEqual(afterMove.body.configurations, { resource_name: 'res', api_version: '2024-10-21', custom_host: moved });
      assert.equal((await lookup())?.target.customHost, moved);

      // null removes it; the other fields stay.
      const cleared = await call('put', `/v1/providers/${created.body.id}`, admin(), { custom_host: null });
      assert.equal(cleared.body.custom_host, null);
      const afterClear = await call('get', `/v1/providers/${created.body.id}?include_configurations=true`, admin());
      assert.deepEqual(afterClear.body.configurations, { resource_name: 'res', api_version: '2024-10-21' });
      assert.equal((await lookup())?.target.customHost, undefined);
    });

    test('a top-level custom_host is checked like configurations.custom_host, and the two must agree', async () => {
      const badHost = await call('post', '/v1/providers', admin(), { name: 'bad top host', ai_provider_id: 'openai', key: 'k', custom_host: 'http//broken' });
      assert.equal(badHost.status, 400);
      assert.equal(badHost.body.error.param, 'custom_host');
      const conflict = await call('post', '/v1/providers', admin(), {
        name: 'two hosts',
        ai_provider_id: 'openai',
        key: 'k',
        custom_host: 'https://a.example.com',
        configurations: { custom_host: 'https://b.example.com' },
      });
      assert.equal(conflict.status, 400);
      assert.equal(conflict.body.error.param, 'custom_host');
      assert.equal(conflict.body.error.code, 'custom_host_conflict');
      assert.match(conflict.body.error.message, /configurations\.custom_host/);
      const same = await call('post', '/v1/providers', admin(), {
        name: 'same hosts',
        ai_provider_id: 'openai',
        key: 'k',
        custom_host: 'https://a.example.com',
        configurations: { custom_host: 'https://a.example.com' },
      });
      assert.equal(same.status, 201);
      assert.equal(same.body.custom_host, 'https://a.example.com');
    });

    test('include_configurations=true is for system authentication only; secrets stay masked', async () => {
      const integration = await call('post', '/v1/integrations', admin(), {
        name: 'shared',
        ai_provider_id: 'azure-openai',
        key: INTEGRATION_KEY,
        configurations: { resource_name: 'shared-res', api_version: '2024-10-21' },
        workspace_access: { all_workspaces: true, workspace_ids: [] },
      });
      assert.equal(integration.status, 201);
      const created = await call('post', '/v1/providers', admin(), { name: 'via integration', integration_id: 'shared', configurations: { deployment_id: 'mine' } });
      assert.equal(created.status, 201);
      assert.equal(created.body.ai_provider_id, 'azure-openai');

      const system = await call('get', `/v1/providers/${created.body.id}?include_configurations=true`, admin());
      assert.equal(system.status, 200);
      assert.deepEqual(system.body.configurations, { resource_name: 'shared-res', api_version: '2024-10-21', deployment_id: 'mine' });
      assert.equal(system.body.masked_key, 'sk-i********9876');

      // An organisation key without the dedicated scope, and a workspace key, are refused.
      const plainAdmin = await call('post', '/v1/api-keys/organisation/service', admin(), { name: 'reader', scopes: ['virtual_keys.read'] });
      const refused = await call('get', `/v1/providers/${created.body.id}?include_configurations=true`, { 'x-gw-api-key': plainAdmin.body.key });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'system_authentication_required');
      const plain = await call('get', `/v1/providers/${created.body.id}`, { 'x-gw-api-key': plainAdmin.body.key });
      assert.equal(plain.status, 200);
      const wsKey = await call('post', '/v1/api-keys/workspace/service', admin(), { name: 'ws', workspace_id: 'default', scopes: [...PROVIDER_SCOPES, 'provider_configurations.read'] });
      const wsRefused = await call('get', `/v1/providers/${created.body.id}?include_configurations=true`, { 'x-gw-api-key': wsKey.body.key });
      assert.equal(wsRefused.status, 403);

      const saved = await app.services.savedResources.provider(app.boot.organisationId, app.boot.workspaceId, 'via-integration');
      assert.equal(saved?.target.apiKey, INTEGRATION_KEY);
      assert.deepEqual(saved?.target.azure, { resourceName: 'shared-res', deploymentId: 'mine', apiVersion: '2024-10-21' });
    });

    test('a provider on an oauthClientCredentials integration needs no fields of its own; the client secret stays masked', async () => {
      const integration = await call('post', '/v1/integrations', admin(), {
        name: 'entra app',
        ai_provider_id: 'azure-openai',
        auth_type: 'oauthClientCredentials',
        configurations: { oauth_token_endpoint: 'https://login.example.com/token', oauth_client_id: 'app', oauth_client_secret: AWS_SECRET, resource_name: 'r' },
        workspace_access: { all_workspaces: true, workspace_ids: [] },
      });
      assert.equal(integration.status, 201);
      const created = await call('post', '/v1/providers', admin(), { name: 'on oauth', integration_id: integration.body.id, configurations: { deployment_id: 'd' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.auth_type, 'oauthClientCredentials');
      const system = await call('get', `/v1/providers/${created.body.id}?include_configurations=true`, admin());
      assert.equal(system.body.configurations.oauth_client_id, 'app');
      assert.equal(system.body.configurations.oauth_client_secret, 'aws-********ghij');
    });

    test('a workspace key sees and changes only its own workspace providers', async () => {
      const team = await workspaceWithKey(app, 'team-p', PROVIDER_SCOPES);
      const other = await workspaceWithKey(app, 'other-p', PROVIDER_SCOPES);
      const mine = await call('post', '/v1/providers', { 'x-gw-api-key': team.key }, { name: 'mine', ai_provider_id: 'openai', key: PROVIDER_KEY });
      assert.equal(mine.status, 201);
      assert.equal(mine.body.workspace_id, team.workspaceId);
      const elsewhere = await call('post', '/v1/providers', { 'x-gw-api-key': team.key }, { name: 'x', workspace_id: 'other-p', ai_provider_id: 'openai', key: 'k' });
      assert.equal(elsewhere.status, 403);

      const otherList = await call('get', '/v1/providers', { 'x-gw-api-key': other.key });
      assert.equal(otherList.status, 200);
      assert.deepEqual(otherList.body.data, []);
      assert.equal((await call('get', `/v1/providers/${mine.body.id}`, { 'x-gw-api-key': other.key })).status, 404);
      assert.equal((await call('put', `/v1/providers/${mine.body.id}`, { 'x-gw-api-key': other.key }, { name: 'stolen' })).status, 404);
      assert.equal((await call('delete', `/v1/providers/${mine.body.id}`, { 'x-gw-api-key': other.key })).status, 404);
      const listOther = await call('get', '/v1/providers?workspace_id=team-p', { 'x-gw-api-key': other.key });
      assert.equal(listOther.status, 403);

      const teamList = await call('get', '/v1/providers', { 'x-gw-api-key': team.key });
      assert.deepEqual(teamList.body.data.map((p: { id: string }) => p.id), [mine.body.id]);
      // The same slug may exist in another workspace; the gateway resolves it per workspace.
      const sameSlug = await call('post', '/v1/providers', { 'x-gw-api-key': other.key }, { name: 'mine', slug: 'mine', ai_provider_id: 'anthropic', key: 'sk-ant-other' });
      assert.equal(sameSlug.status, 201);
      const inTeam = await app.services.savedResources.provider(app.boot.organisationId, team.workspaceId, '@mine');
      const inOther = await app.services.savedResources.provider(app.boot.organisationId, other.workspaceId, '@mine');
      assert.equal(inTeam?.target.provider, 'openai');
      assert.equal(inOther?.target.provider, 'anthropic');

      const noScope = await workspaceWithKey(app, 'no-scope-p', ['completions.write']);
      assert.equal((await call('get', '/v1/providers', { 'x-gw-api-key': noScope.key })).status, 403);
    });

    test('legacy virtual-key routes work over the same providers', async () => {
      const legacy = await call('post', '/v1/virtual-keys', admin(), { name: 'Legacy VK', ai_provider_id: 'openai', key: PROVIDER_KEY });
      assert.equal(legacy.status, 201);
      const viaProviders = await call('get', `/v1/providers/${legacy.body.slug}`, admin());
      assert.equal(viaProviders.status, 200);
      assert.equal(viaProviders.body.id, legacy.body.id);
      const renamed = await call('put', `/v1/virtual-keys/${legacy.body.id}`, admin(), { name: 'Renamed VK' });
      assert.equal(renamed.status, 200);
      assert.equal((await call('get', `/v1/providers/${legacy.body.id}`, admin())).body.name, 'Renamed VK');
      const listed = await call('get', '/v1/virtual-keys', admin());
      assert.ok(listed.body.data.some((p: { id: string }) => p.id === legacy.body.id));
      assert.equal((await call('delete', `/v1/virtual-keys/${legacy.body.id}`, admin())).status, 200);
      assert.equal((await call('get', `/v1/providers/${legacy.body.id}`, admin())).status, 404);
    });

    test('updates keep a secret that is left out or echoed back masked, and replace it when a new one is sent', async () => {
      const created = await call('post', '/v1/providers', admin(), { name: 'rotating', ai_provider_id: 'openai', key: PROVIDER_KEY });
      const lookup = () => app.services.savedResources.provider(app.boot.organisationId, app.boot.workspaceId, 'rotating');
      await call('put', `/v1/providers/${created.body.id}`, admin(), { note: 'n' });
      assert.equal((await lookup())?.target.apiKey, PROVIDER_KEY);
      await call('put', `/v1/providers/${created.body.id}`, admin(), { key: created.body.masked_key });
      assert.equal((await lookup())?.target.apiKey, PROVIDER_KEY);
      await call('put', `/v1/providers/${created.body.id}`, admin(), { key: 'sk-brand-new-key-000000' });
      assert.equal((await lookup())?.target.apiKey, 'sk-brand-new-key-000000');
    });

    test('rejections: no provider named, mismatched provider, long names, taken slug, unknown integration', async () => {
      const none = await call('post', '/v1/providers', admin(), { name: 'nothing', key: 'k' });
      assert.equal(none.status, 400);
      const long = await call('post', '/v1/providers', admin(), { name: 'x'.repeat(256), ai_provider_id: 'openai', key: 'k' });
      assert.equal(long.status, 400);
      assert.equal(long.body.error.param, 'name');
      const badSlug = await call('post', '/v1/providers', admin(), { name: 'n', slug: 'has space', ai_provider_id: 'openai', key: 'k' });
      assert.equal(badSlug.status, 400);
      assert.equal(badSlug.body.error.param, 'slug');
      const first = await call('post', '/v1/providers', admin(), { name: 'dup', slug: 'dup', ai_provider_id: 'openai', key: 'k' });
      assert.equal(first.status, 201);
      const taken = await call('post', '/v1/providers', admin(), { name: 'dup', slug: 'dup', ai_provider_id: 'openai', key: 'k' });
      assert.equal(taken.status, 409);
      const unknown = await call('post', '/v1/providers', admin(), { name: 'u', integration_id: 'no-such-integration' });
      assert.equal(unknown.status, 404);
      const missingKey = await call('post', '/v1/providers', admin(), { name: 'no key', ai_provider_id: 'openai' });
      assert.equal(missingKey.status, 400);
      const badHost = await call('post', '/v1/providers', admin(), { name: 'h', ai_provider_id: 'openai', key: 'k', configurations: { custom_host: 'http//broken' } });
      assert.equal(badHost.status, 400);
      assert.equal(badHost.body.error.param, 'configurations.custom_host');
      await call('post', '/v1/integrations', admin(), { name: 'anthropic int', ai_provider_id: 'anthropic', key: 'k', workspace_access: { all_workspaces: true, workspace_ids: [] } });
      const mismatch = await call('post', '/v1/providers', admin(), { name: 'mm', integration_id: 'anthropic-int', ai_provider_id: 'openai' });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.error.param, 'ai_provider_id');
    });
  });
}
