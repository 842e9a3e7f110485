import type { TestApp } from '../helpers/test-app.js';

/** A second workspace (created in the store: workspace routes are not this suite's subject) and a service key bound to it. */
export async function workspaceWithKey(app: TestApp, slug: string, scopes: string[]): Promise<{ workspaceId: string; key: string }> {
  const workspace = await app.services.store.workspaces.create(
    { organisation_id: app.boot.organisationId, name: slug, slug },
    new Date(app.services.now()).toISOString(),
  );
  const created = await app.http
    .post('/v1/api-keys/workspace/service')
    .set({ 'x-gw-api-key': app.adminKey })
    .send({ name: `${slug} key`, workspace_id: workspace.id, scopes });
  if (created.status !== 201) throw new Error(`workspace key: ${created.status} ${JSON.stringify(created.body)}`);
  return { workspaceId: workspace.id, key: created.body.key as string };
}

/** Every stored column of every row of a table, as one string: for "the secret is not stored in clear" checks. */
export async function rawTable(app: TestApp, table: string): Promise<string> {
  return JSON.stringify(await app.services.db(table).select());
}

export const PROVIDER_SCOPES = ['virtual_keys.create', 'virtual_keys.read', 'virtual_keys.list', 'virtual_keys.update', 'virtual_keys.delete'];
export const CONFIG_SCOPES = ['configs.create', 'configs.read', 'configs.list', 'configs.update', 'configs.delete'];
export const INTEGRATION_SCOPES = ['integrations.create', 'integrations.read', 'integrations.list', 'integrations.update', 'integrations.delete'];
