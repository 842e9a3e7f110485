/** Agent integrations (A2A agents gw relays to): the list and each one's detail with its agent card. */
import type { AgentIntegration } from '../../api/types';
import { ResourcePage, show, type ResourceSpec } from '../../components/resource-page';
import { AgentClientTls } from './agent-client-tls';

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
    ['Client certificate', a.client_tls ? `set (key ${a.client_tls.private_key})` : 'none'],
    ['Agent card', a.agent_card ? `${a.agent_card.name ?? ''} ${a.agent_card.version ?? ''}`.trim() || 'fetched' : 'none'],
    ['Updated', show.time(a.updated_at)],
  ],
  Extra: AgentClientTls,
};

export function AgentsPage({ rest }: { rest: string }) {
  return <ResourcePage spec={agents} rest={rest} title="Agent integrations" intro="A2A agents gw relays to, with their credentials and agent card." />;
}
