import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestApp } from '../helpers/test-app.js';

/** Registers an MCP server's URL as an integration and adds it to the default workspace as a server. */
export async function addMcpServer(
  app: TestApp,
  options: { url: string; slug: string; disabledTools?: string[]; transport?: 'http' | 'sse'; auth?: { auth_type: string; configurations: Record<string, unknown> } },
): Promise<{ integrationId: string; serverId: string }> {
  const admin = { 'x-gw-api-key': app.adminKey };
  const integration = await app.http
    .post('/v1/mcp-integrations')
    .set(admin)
    .send({ name: `${options.slug} upstream`, url: options.url, transport: options.transport ?? 'http', auth_type: 'none', global_workspace_access: true, ...options.auth });
  assert.equal(integration.status, 201, JSON.stringify(integration.body));
  assert.equal(integration.body.sync_status, 'synced');
  if (options.disabledTools?.length) {
    const put = await app.http
      .put(`/v1/mcp-integrations/${integration.body.id}/capabilities`)
      .set(admin)
      .send({ capabilities: options.disabledTools.map((name) => ({ name, type: 'tool', enabled: false })) });
    assert.equal(put.status, 200);
  }
  const server = await app.http.post('/v1/mcp-servers').set(admin).send({ name: options.slug, slug: options.slug, mcp_integration_id: integration.body.id });
  assert.equal(server.status, 201, JSON.stringify(server.body));
  return { integrationId: integration.body.id, serverId: server.body.id };
}

/** A workspace service key with the given scopes (mcp.invoke by default). */
export async function workspaceKey(app: TestApp, scopes = ['mcp.invoke']): Promise<string> {
  const created = await app.http.post('/v1/api-keys/workspace/service').set({ 'x-gw-api-key': app.adminKey }).send({ name: `mcp caller ${scopes.join(',')}`, workspace_id: 'default', scopes });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.key as string;
}

/** The MCP SDK's own client, connected through gw to `{base}/{slug}/mcp`. */
export async function gwClient(baseUrl: string, slug: string, headers: Record<string, string>, fetch?: typeof globalThis.fetch): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/${slug}/mcp`), { requestInit: { headers }, fetch });
  const client = new Client({ name: 'gw-test-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}
