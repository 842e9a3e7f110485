import { useState } from 'react';
import { can } from '../api/identity';
import type { Integration, Page, Provider } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { useAction } from '../use-action';
import { useAsync } from '../use-async';
import { IntegrationForm, ProviderForm } from './provider-forms';

type Editing = { kind: 'provider'; item?: Provider } | { kind: 'integration'; item?: Integration };

/** Saved providers and the organisation's integrations; their secrets are typed in, never shown (gw masks them). */
export function ProvidersPage() {
  const identity = useIdentity();
  const { api } = identity;
  const [editing, setEditing] = useState<Editing>();
  const [refresh, setRefresh] = useState(0);
  const removal = useAction();
  const mayListIntegrations = can(identity, 'integrations.list');
  const integrations = useAsync(() => (mayListIntegrations ? api.get<Page<Integration>>('/v1/integrations', { limit: 100 }).then((p) => p.data) : Promise.resolve(undefined)), [api, refresh]);
  const saved = () => {
    setEditing(undefined);
    setRefresh((n) => n + 1);
  };
  const remove = (path: string) => removal.run(async () => {
    await api.send('DELETE', path);
    setRefresh((n) => n + 1);
  });
  const editButton = (name: string, scope: string, open: () => void) => (
    <button type="button" className="secondary" disabled={!can(identity, scope)} title={can(identity, scope) ? undefined : `Needs ${scope}`} onClick={open} aria-label={`Edit ${name}`}>
      Edit
    </button>
  );

  return (
    <section aria-labelledby="providers-title">
      <h1 id="providers-title" tabIndex={-1}>
        Providers
      </h1>
      <p className="hint">Use a provider in gateway calls as <code>x-gw-provider: @slug</code> or <code>model: "@slug/model"</code>.</p>
      <div className="actions">
        {can(identity, 'virtual_keys.create') && (
          <button type="button" onClick={() => setEditing({ kind: 'provider' })}>
            New provider
          </button>
        )}
        {can(identity, 'integrations.create') && (
          <button type="button" className="secondary" onClick={() => setEditing({ kind: 'integration' })}>
            New integration
          </button>
        )}
      </div>
      {editing?.kind === 'provider' && <ProviderForm key={editing.item?.id ?? 'new'} existing={editing.item} integrations={integrations.data} onSaved={saved} onCancel={() => setEditing(undefined)} />}
      {editing?.kind === 'integration' && <IntegrationForm key={editing.item?.id ?? 'new'} existing={editing.item} onSaved={saved} onCancel={() => setEditing(undefined)} />}
      <ErrorNote error={removal.error} title="Not deleted" />
      <ResourceTable<Provider>
        path="/v1/providers"
        label="Providers"
        refresh={refresh}
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Slug', cell: (p) => <code>@{p.slug}</code> },
          { name: 'Provider', cell: (p) => p.ai_provider_id },
          { name: 'Auth', cell: (p) => p.auth_type },
          { name: 'Key', cell: (p) => (p.integration_id ? 'from its integration' : <span className="mono">{p.masked_key ?? '—'}</span>) },
          { name: 'Status', cell: (p) => p.status },
          { name: 'Created', cell: (p) => fmt.time(p.created_at) },
          {
            name: 'Actions',
            cell: (p) => (
              <div className="row-actions">
                {editButton(p.name, 'virtual_keys.update', () => setEditing({ kind: 'provider', item: p }))}
                <ConfirmButton verb="Delete" gerund="deleting" name={p.name} scope="virtual_keys.delete" allowed={can(identity, 'virtual_keys.delete')} onConfirm={() => remove(`/v1/providers/${p.id}`)} />
              </div>
            ),
          },
        ]}
      />
      {mayListIntegrations && (
        <>
          <h2>Integrations</h2>
          <ResourceTable<Integration>
            path="/v1/integrations"
            label="Integrations"
            refresh={refresh}
            columns={[
              { name: 'Name', cell: (i) => i.name },
              { name: 'Slug', cell: (i) => <code>{i.slug}</code> },
              { name: 'Provider', cell: (i) => i.ai_provider_id },
              { name: 'Key', cell: (i) => <span className="mono">{i.masked_key ?? '—'}</span> },
              { name: 'Workspaces', cell: (i) => ((i.workspace_access as { all_workspaces?: boolean } | undefined)?.all_workspaces ? 'all' : 'listed') },
              { name: 'Status', cell: (i) => i.status },
              {
                name: 'Actions',
                cell: (i) => (
                  <div className="row-actions">
                    {editButton(i.name, 'integrations.update', () => setEditing({ kind: 'integration', item: i }))}
                    <ConfirmButton verb="Delete" gerund="deleting" name={i.name} scope="integrations.delete" allowed={can(identity, 'integrations.delete')} onConfirm={() => remove(`/v1/integrations/${i.id}`)} />
                  </div>
                ),
              },
            ]}
          />
        </>
      )}
    </section>
  );
}
