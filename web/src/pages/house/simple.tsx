/** Agent integrations, deployments and secret references: a list and each record's detail. */
import type { AgentIntegration, Deployment, SecretReference } from '../../api/types';
import { ResourcePage, show, type ResourceSpec } from '../../components/resource-page';

const agents: ResourceSpec<AgentIntegration> = {
  page: '/agents',
  label: 'Agent integrations',
  listPath: '/v2/agent-integrations',
  detailPath: (id) => `/v2/agent-integrations/${id}`,
  id: (a) => a.id,
  name: (a) => a.name,
  columns: [
    { name: 'Slug', cell: (a) => <span className="mono">{a.slug}</span> },
    { name: 'URL', cell: (a) => <span className="mono">{a.url}</span> },
    { name: 'Auth', cell: (a) => a.auth_type },
    { name: 'Status', cell: (a) => a.status },
  ],
  facts: (a) => [
    ['Slug', a.slug],
    ['URL', a.url],
    ['Auth', a.auth_type],
    ['Status', a.status],
    ['Agent card', a.agent_card ? `${a.agent_card.name ?? ''} ${a.agent_card.version ?? ''}`.trim() || 'fetched' : 'none'],
    ['Updated', show.time(a.updated_at)],
  ],
};

export function AgentsPage({ rest }: { rest: string }) {
  return <ResourcePage spec={agents} rest={rest} title="Agent integrations" intro="A2A agents gw relays to, with their credentials and agent card." />;
}

const deployments: ResourceSpec<Deployment> = {
  page: '/deployments',
  label: 'Deployments',
  listPath: '/v1/deployments',
  detailPath: (id) => `/v1/deployments/${id}`,
  id: (d) => d.id,
  name: (d) => d.name,
  columns: [
    { name: 'Status', cell: (d) => <span className={d.status === 'active' ? 'good' : undefined}>{d.status}</span> },
    { name: 'Last heartbeat', cell: (d) => show.time(d.last_heartbeat_at) },
    { name: 'Version', cell: (d) => d.version ?? '—' },
    { name: 'Gateway URL', cell: (d) => <span className="mono">{d.gateway_base_url ?? '—'}</span> },
    { name: 'Unsupported policies', cell: (d) => d.unsupported_policies.length || 'none' },
  ],
  facts: (d) => [
    ['Slug', d.slug],
    ['Status', d.status],
    ['Last heartbeat', show.time(d.last_heartbeat_at)],
    ['Version', d.version],
    ['Gateway URL', d.gateway_base_url],
    ['MCP gateway URL', d.mcp_gateway_base_url],
    ['Key', d.masked_key],
    ['Unsupported policies', d.unsupported_policies.map((p) => `${p.policy} (needs ${p.required_version})`).join(', ') || 'none'],
  ],
};

export function DeploymentsPage({ rest }: { rest: string }) {
  return <ResourcePage spec={deployments} rest={rest} title="Deployments" intro="Self-hosted gateways: their status, last heartbeat and release, and policies their release cannot enforce." />;
}

const secrets: ResourceSpec<SecretReference> = {
  page: '/secret-references',
  label: 'Secret references',
  listPath: '/v1/secret-references',
  detailPath: (id) => `/v1/secret-references/${id}`,
  id: (s) => s.id,
  name: (s) => s.name,
  columns: [
    { name: 'Slug', cell: (s) => <span className="mono">{s.slug}</span> },
    { name: 'Manager', cell: (s) => s.manager_type },
    { name: 'Path', cell: (s) => <span className="mono">{s.secret_path}</span> },
    { name: 'Workspaces', cell: (s) => (s.allow_all_workspaces ? 'all' : s.allowed_workspaces.length) },
  ],
  facts: (s) => [
    ['Slug', s.slug],
    ['Manager', s.manager_type],
    ['Secret path', s.secret_path],
    ['Secret key', s.secret_key],
    ['Workspaces', s.allow_all_workspaces ? 'all' : s.allowed_workspaces.join(', ') || 'none'],
    ['Status', s.status],
    ['Updated', show.time(s.last_updated_at)],
  ],
};

export function SecretReferencesPage({ rest }: { rest: string }) {
  return <ResourcePage spec={secrets} rest={rest} title="Secret references" intro="Where gw fetches a secret from (Vault, AWS, Azure, Google): the path, never the value." />;
}
