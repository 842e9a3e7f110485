/** Self-hosted gateways: status, last heartbeat, release, and the policies their release cannot enforce. */
import type { Deployment } from '../../api/types';
import { ResourcePage, show, type ResourceSpec } from '../../components/resource-page';

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
