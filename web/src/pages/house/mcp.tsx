/**
 * MCP integrations (a server's address and credentials) and MCP servers (a workspace's instance,
 * reached by MCP clients at its gateway URL): lists, details with tools and capabilities, the
 * gateway URL to copy, and a connection test.
 */
import { useState } from 'react';
import { can } from '../../api/identity';
import type { McpCapability, McpIntegration, McpServer, McpServerTest } from '../../api/types';
import { ResourceDetail, ResourceList, show, type ResourceSpec } from '../../components/resource-page';
import { ErrorNote, Loading, Empty } from '../../components/status';
import { useIdentity } from '../../identity-context';
import { useAction } from '../../use-action';
import { useAsync } from '../../use-async';

interface CapabilityList {
  data: McpCapability[];
  total: number;
}

/** The tools, prompts and resources gw knows of a server or integration, with what each may do. */
function Capabilities({ path }: { path: string }) {
  const { api } = useIdentity();
  const list = useAsync(() => api.get<CapabilityList>(path), [api, path]);
  return (
    <>
      <h2>Tools and capabilities</h2>
      <ErrorNote error={list.error} title="Could not load the capabilities" />
      {!list.data && !list.error && <Loading what="Loading capabilities" />}
      {list.data && list.data.data.length === 0 && <Empty>No capabilities known yet (gw learns them when the server is synced or first used).</Empty>}
      {list.data && list.data.data.length > 0 && (
        <div className="table-scroll">
          <table aria-label="Capabilities">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Enabled</th>
                <th scope="col">Description</th>
                <th scope="col">Hints</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={`${c.type}:${c.name}`}>
                  <td className="mono">{c.name}</td>
                  <td>{c.type}</td>
                  <td>{c.enabled ? 'yes' : 'no'}</td>
                  <td>{c.description ?? '—'}</td>
                  <td>{c.annotations ? Object.entries(c.annotations).filter(([, v]) => v === true).map(([k]) => k).join(', ') || '—' : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function CopyUrl({ url, label }: { url: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="copy-row">
      <code>{url}</code>
      <button type="button" className="secondary" aria-label={`Copy ${label}`} onClick={() => void navigator.clipboard?.writeText(url).then(() => setCopied(true))}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

function ServerExtra({ item }: { item: McpServer }) {
  const identity = useIdentity();
  const [result, setResult] = useState<McpServerTest>();
  const { busy, error, run } = useAction();
  const test = () =>
    run(async () => {
      setResult(await identity.api.send<McpServerTest>('POST', `/v1/mcp-servers/${item.id}/test`));
    });
  return (
    <>
      <h2>Connect an MCP client</h2>
      <p>MCP clients (Streamable HTTP) reach this server through gw at:</p>
      <CopyUrl url={item.url} label="the gateway URL" />
      <div className="actions">
        <button type="button" onClick={() => void test()} disabled={busy}>
          {busy ? 'Testing…' : 'Test connection'}
        </button>
      </div>
      <ErrorNote error={error} title="Test failed" />
      {result && (
        <p role="status" className={result.success ? 'good' : 'bad'}>
          {result.success ? `Connected in ${result.response_time_ms ?? '?'} ms${result.server_name ? ` to ${result.server_name}` : ''}` : `Not connected: ${result.error ?? `HTTP ${result.status_code}`}`}
        </p>
      )}
      <Capabilities path={`/v1/mcp-servers/${item.id}/capabilities`} />
    </>
  );
}

const servers: ResourceSpec<McpServer> = {
  page: '/mcp/servers',
  label: 'MCP servers',
  listPath: '/v1/mcp-servers',
  detailPath: (id) => `/v1/mcp-servers/${id}`,
  id: (s) => s.id,
  name: (s) => s.name,
  columns: [
    { name: 'Slug', cell: (s) => <span className="mono">{s.slug}</span> },
    { name: 'Integration', cell: (s) => s.mcp_integration_slug ?? '—' },
    { name: 'Status', cell: (s) => s.status },
    { name: 'Gateway URL', cell: (s) => <span className="mono">{s.url}</span> },
  ],
  facts: (s) => [
    ['Slug', s.slug],
    ['Status', s.status],
    ['Integration', s.mcp_integration_slug],
    ['Upstream', s.mcp_integration_url],
    ['Transport', s.transport],
    ['Auth', s.auth_type],
    ['Default user access', s.default_user_access],
    ['Workspace', s.workspace_id],
    ['Created', show.time(s.created_at)],
  ],
  Extra: ServerExtra,
};

const integrations: ResourceSpec<McpIntegration> = {
  page: '/mcp/integrations',
  label: 'MCP integrations',
  listPath: '/v1/mcp-integrations',
  detailPath: (id) => `/v1/mcp-integrations/${id}`,
  id: (i) => i.id,
  name: (i) => i.name,
  columns: [
    { name: 'Slug', cell: (i) => <span className="mono">{i.slug}</span> },
    { name: 'URL', cell: (i) => <span className="mono">{i.url}</span> },
    { name: 'Auth', cell: (i) => i.auth_type },
    { name: 'Sync', cell: (i) => i.sync_status ?? '—' },
  ],
  facts: (i) => [
    ['Slug', i.slug],
    ['URL', i.url],
    ['Transport', i.transport],
    ['Auth', i.auth_type],
    ['Owner', i.workspace_id ?? 'organisation'],
    ['Sync', i.sync_status],
    ['Updated', show.time(i.last_updated_at)],
  ],
  Extra: ({ item }) => <Capabilities path={`/v1/mcp-integrations/${item.id}/capabilities`} />,
};

export function McpPage({ rest }: { rest: string }) {
  const identity = useIdentity();
  const [, kind, id] = rest.split('/');
  if (kind === 'servers' && id) return <ResourceDetail spec={servers} id={decodeURIComponent(id)} />;
  if (kind === 'integrations' && id) return <ResourceDetail spec={integrations} id={decodeURIComponent(id)} />;
  return (
    <section aria-labelledby="mcp-title">
      <h1 id="mcp-title" tabIndex={-1}>
        MCP
      </h1>
      <p className="hint">Integrations hold an MCP server's address and credentials; servers are a workspace's instance of one, which MCP clients reach through gw.</p>
      {can(identity, 'mcp_servers.list') && (
        <>
          <h2>Servers</h2>
          <ResourceList spec={servers} />
        </>
      )}
      {can(identity, 'mcp_integrations.list') && (
        <>
          <h2>Integrations</h2>
          <ResourceList spec={integrations} />
        </>
      )}
    </section>
  );
}
