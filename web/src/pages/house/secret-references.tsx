/** Secret references: where gw fetches a secret from (never the value, never the manager's credentials). */
import type { SecretReference } from '../../api/types';
import { ResourcePage, show, type ResourceSpec } from '../../components/resource-page';

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
