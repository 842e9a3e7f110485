import { can } from '../api/identity';
import type { Integration, Provider } from '../api/types';
import { ResourceTable } from '../components/resource-table';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';

/** Saved providers and the organisation's integrations; their secrets are never shown (gw masks them). */
export function ProvidersPage() {
  const identity = useIdentity();
  return (
    <section aria-labelledby="providers-title">
      <h1 id="providers-title" tabIndex={-1}>
        Providers
      </h1>
      <p className="hint">Use a provider in gateway calls as <code>x-gw-provider: @slug</code> or <code>model: "@slug/model"</code>.</p>
      <ResourceTable<Provider>
        path="/v1/providers"
        label="Providers"
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Slug', cell: (p) => <code>@{p.slug}</code> },
          { name: 'Provider', cell: (p) => p.ai_provider_id },
          { name: 'Auth', cell: (p) => p.auth_type },
          { name: 'Integration', cell: (p) => (p.integration_id ? 'yes' : 'own key') },
          { name: 'Status', cell: (p) => p.status },
          { name: 'Created', cell: (p) => fmt.time(p.created_at) },
        ]}
      />
      {can(identity, 'integrations.list') && (
        <>
          <h2>Integrations</h2>
          <ResourceTable<Integration>
            path="/v1/integrations"
            label="Integrations"
            columns={[
              { name: 'Name', cell: (i) => i.name },
              { name: 'Slug', cell: (i) => <code>{i.slug}</code> },
              { name: 'Provider', cell: (i) => i.ai_provider_id },
              { name: 'Auth', cell: (i) => i.auth_type },
              { name: 'Workspaces', cell: (i) => ((i.workspace_access as { all_workspaces?: boolean } | undefined)?.all_workspaces ? 'all' : 'listed') },
              { name: 'Status', cell: (i) => i.status },
            ]}
          />
        </>
      )}
    </section>
  );
}
