import { useState } from 'react';
import { can } from '../api/identity';
import type { Page, RateLimitsPolicy, UsageLimitsEntity, UsageLimitsPolicy } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote, Loading, Empty } from '../components/status';
import { useIdentity } from '../identity-context';
import { useAction } from '../use-action';
import { useAsync } from '../use-async';
import { RateLimitForm, UsageLimitForm } from './policy-forms';

type Editing = { kind: 'usage'; item?: UsageLimitsPolicy } | { kind: 'rate'; item?: RateLimitsPolicy };

const appliesTo = (workspaceId: string | null) => (workspaceId ? <code>{workspaceId}</code> : 'organisation');

const groupKeys = (groupBy: unknown) => (groupBy as Array<{ key?: string }>).map((g) => g.key ?? '?').join(', ') || '—';

/** Usage and rate-limit policies, with what each entity has used in the current period. */
export function PoliciesPage() {
  const identity = useIdentity();
  const [open, setOpen] = useState<UsageLimitsPolicy>();
  const [editing, setEditing] = useState<Editing>();
  const [refresh, setRefresh] = useState(0);
  const removal = useAction();
  const mayCreate = can(identity, 'policies.create');
  const mayUpdate = can(identity, 'policies.update');
  const mayDelete = can(identity, 'policies.delete');
  const saved = () => {
    setEditing(undefined);
    setOpen(undefined);
    setRefresh((n) => n + 1);
  };
  const remove = (path: string) =>
    removal.run(async () => {
      await identity.api.send('DELETE', path);
      setOpen(undefined);
      setRefresh((n) => n + 1);
    });
  const actions = (name: string, edit: () => void, path: string) => (
    <div className="row-actions">
      <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs policies.update'} onClick={edit} aria-label={`Edit ${name}`}>
        Edit
      </button>
      <ConfirmButton verb="Delete" gerund="deleting" name={name} scope="policies.delete" allowed={mayDelete} onConfirm={() => remove(path)} />
    </div>
  );
  const formKey = editing && `${editing.kind}-${editing.item?.id ?? 'new'}`;
  const form = { onSaved: saved, onCancel: () => setEditing(undefined) };

  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title" tabIndex={-1}>
        Policies
      </h1>
      {mayCreate && (
        <div className="actions">
          <button type="button" onClick={() => setEditing({ kind: 'usage' })}>
            New usage limit
          </button>
          <button type="button" className="secondary" onClick={() => setEditing({ kind: 'rate' })}>
            New rate limit
          </button>
        </div>
      )}
      {editing?.kind === 'usage' && <UsageLimitForm key={formKey} {...form} existing={editing.item} />}
      {editing?.kind === 'rate' && <RateLimitForm key={formKey} {...form} existing={editing.item} />}
      <ErrorNote error={removal.error} title="Not deleted" />
      <h2>Usage limits</h2>
      <ResourceTable<UsageLimitsPolicy>
        path="/v2/policies/usage-limits"
        label="Usage-limit policies"
        refresh={refresh}
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Type', cell: (p) => p.type },
          { name: 'Workspace', cell: (p) => appliesTo(p.workspace_id) },
          { name: 'Limit', cell: (p) => String(p.credit_limit) },
          { name: 'Resets', cell: (p) => p.periodic_reset ?? (p.periodic_reset_days ? `every ${p.periodic_reset_days} days` : 'never') },
          { name: 'Grouped by', cell: (p) => groupKeys(p.group_by) },
          {
            name: 'Current usage',
            cell: (p) => (
              <>
                {can(identity, 'policies.read') && <UsageCell key={refresh} policy={p} />}
                <button type="button" className="link" onClick={() => setOpen(p)} disabled={!can(identity, 'policies.read')} aria-label={`Show current usage of ${p.name}`}>
                  Show
                </button>
              </>
            ),
          },
          { name: 'Actions', cell: (p) => actions(p.name, () => setEditing({ kind: 'usage', item: p }), `/v2/policies/usage-limits/${p.id}`) },
        ]}
      />
      {open && <Entities key={`${open.id}-${refresh}`} policy={open} mayReset={mayUpdate} />}
      <h2>Rate limits</h2>
      <ResourceTable<RateLimitsPolicy>
        path="/v2/policies/rate-limits"
        label="Rate-limit policies"
        refresh={refresh}
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Type', cell: (p) => `${p.type} (${p.target})` },
          { name: 'Workspace', cell: (p) => appliesTo(p.workspace_id) },
          { name: 'Limit', cell: (p) => `${p.value} per ${p.unit}` },
          { name: 'Grouped by', cell: (p) => groupKeys(p.group_by) },
          { name: 'Actions', cell: (p) => actions(p.name, () => setEditing({ kind: 'rate', item: p }), `/v2/policies/rate-limits/${p.id}`) },
        ]}
      />
    </section>
  );
}

function Entities({ policy, mayReset }: { policy: UsageLimitsPolicy; mayReset: boolean }) {
  const { api } = useIdentity();
  const entities = useAsync(() => api.get<Page<UsageLimitsEntity>>(`/v2/policies/usage-limits/${policy.id}/entities`, { limit: 100 }), [api, policy.id]);
  const reset = useAction();
  const resetEntity = (entity: UsageLimitsEntity) =>
    reset.run(async () => {
      await api.send('POST', `/v2/policies/usage-limits/${policy.id}/entities/${encodeURIComponent(entity.entity_id)}/reset`);
      entities.reload();
    });
  const nameOf = (e: UsageLimitsEntity) => Object.entries(e.group).map(([k, v]) => `${k}=${v}`).join(', ') || 'everyone';
  return (
    <section aria-label={`Current usage of ${policy.name}`} className="panel">
      <h3>Current usage: {policy.name}</h3>
      <ErrorNote error={entities.error ?? reset.error} />
      {!entities.data && !entities.error && <Loading what="Loading usage" />}
      {entities.data && entities.data.data.length === 0 && <Empty>No usage in this period.</Empty>}
      {entities.data && entities.data.data.length > 0 && (
        <div className="table-scroll">
          <table aria-label="Usage per entity">
            <thead>
              <tr>
                <th scope="col">Entity</th>
                <th scope="col">Used</th>
                <th scope="col">Remaining</th>
                <th scope="col">Resets</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {entities.data.data.map((e) => (
                <tr key={e.entity_id}>
                  <td>{nameOf(e)}</td>
                  <td>
                    <meter min={0} max={e.credit_limit} value={e.usage} aria-label={`Used ${e.usage} of ${e.credit_limit}`} /> {e.usage} / {e.credit_limit}
                    {e.alert_threshold_reached && <span className="bad"> alert</span>}
                  </td>
                  <td>{e.remaining}</td>
                  <td>{e.next_usage_reset_at ? new Date(e.next_usage_reset_at).toLocaleString() : 'never'}</td>
                  <td>
                    <ConfirmButton verb="Reset" gerund="resetting" name={`usage of ${nameOf(e)}`} scope="policies.update" allowed={mayReset} onConfirm={() => resetEntity(e)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The list's used/limit: the entity closest to the limit (the one a refusal would hit first), with a bar. */
function UsageCell({ policy }: { policy: UsageLimitsPolicy }) {
  const { api } = useIdentity();
  const entities = useAsync(() => api.get<Page<UsageLimitsEntity>>(`/v2/policies/usage-limits/${policy.id}/entities`, { limit: 100 }), [api, policy.id]);
  if (!entities.data) return null;
  const used = Math.max(0, ...entities.data.data.map((e) => e.usage));
  const count = entities.data.data.length;
  return (
    <span className="usage">
      <meter min={0} max={policy.credit_limit} value={Math.min(used, policy.credit_limit)} aria-label={`${policy.name}: used ${used} of ${policy.credit_limit}`} /> {used} / {policy.credit_limit}
      {count > 1 && <span> (highest of {count})</span>}{' '}
    </span>
  );
}
