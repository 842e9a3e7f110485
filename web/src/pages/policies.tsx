import { useState } from 'react';
import type { Page, RateLimitsPolicy, UsageLimitsEntity, UsageLimitsPolicy } from '../api/types';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote, Loading, Empty } from '../components/status';
import { useIdentity } from '../identity-context';
import { useAsync } from '../use-async';

/** Usage and rate-limit policies, with what each entity has used in the current period. */
export function PoliciesPage() {
  const [open, setOpen] = useState<UsageLimitsPolicy>();
  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title" tabIndex={-1}>
        Policies
      </h1>
      <h2>Usage limits</h2>
      <ResourceTable<UsageLimitsPolicy>
        path="/v2/policies/usage-limits"
        label="Usage-limit policies"
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Type', cell: (p) => p.type },
          { name: 'Limit', cell: (p) => String(p.credit_limit) },
          { name: 'Grouped by', cell: (p) => (p.group_by as Array<{ key?: string }>).map((g) => g.key ?? '?').join(', ') || '—' },
          { name: 'Status', cell: (p) => p.status },
          {
            name: 'Current usage',
            cell: (p) => (
              <button type="button" className="link" onClick={() => setOpen(p)} aria-label={`Show current usage of ${p.name}`}>
                Show
              </button>
            ),
          },
        ]}
      />
      {open && <Entities policy={open} />}
      <h2>Rate limits</h2>
      <ResourceTable<RateLimitsPolicy>
        path="/v2/policies/rate-limits"
        label="Rate-limit policies"
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Type', cell: (p) => p.type },
          { name: 'Limit', cell: (p) => `${p.value} per ${p.unit}` },
          { name: 'Grouped by', cell: (p) => (p.group_by as Array<{ key?: string }>).map((g) => g.key ?? '?').join(', ') || '—' },
          { name: 'Status', cell: (p) => p.status },
        ]}
      />
    </section>
  );
}

function Entities({ policy }: { policy: UsageLimitsPolicy }) {
  const { api } = useIdentity();
  const entities = useAsync(() => api.get<Page<UsageLimitsEntity>>(`/v2/policies/usage-limits/${policy.id}/entities`, { limit: 100 }), [api, policy.id]);
  return (
    <section aria-label={`Current usage of ${policy.name}`} className="panel">
      <h3>Current usage: {policy.name}</h3>
      <ErrorNote error={entities.error} />
      {!entities.data && !entities.error && <Loading what="Loading usage" />}
      {entities.data && entities.data.data.length === 0 && <Empty>No usage in this period.</Empty>}
      {entities.data && entities.data.data.length > 0 && (
        <table aria-label="Usage per entity">
          <thead>
            <tr>
              <th scope="col">Entity</th>
              <th scope="col">Used</th>
              <th scope="col">Remaining</th>
              <th scope="col">Resets</th>
            </tr>
          </thead>
          <tbody>
            {entities.data.data.map((e) => (
              <tr key={e.entity_id}>
                <td>{Object.entries(e.group).map(([k, v]) => `${k}=${v}`).join(', ') || e.entity_id}</td>
                <td>
                  <meter min={0} max={e.credit_limit} value={e.usage} aria-label={`Used ${e.usage} of ${e.credit_limit}`} /> {e.usage} / {e.credit_limit}
                </td>
                <td>{e.remaining}</td>
                <td>{e.next_usage_reset_at ? new Date(e.next_usage_reset_at).toLocaleString() : 'never'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
