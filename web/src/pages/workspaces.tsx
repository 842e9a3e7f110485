import { useState } from 'react';
import { can } from '../api/identity';
import type { Workspace, WorkspaceMember } from '../api/types';
import { ResourceTable } from '../components/resource-table';
import { useIdentity } from '../identity-context';

export function WorkspacesPage() {
  const identity = useIdentity();
  const [open, setOpen] = useState<Workspace>();
  const mayListMembers = can(identity, 'workspace_users.list');
  return (
    <section aria-labelledby="workspaces-title">
      <h1 id="workspaces-title" tabIndex={-1}>
        Workspaces
      </h1>
      <ResourceTable<Workspace>
        path="/v1/workspaces"
        label="Workspaces"
        columns={[
          { name: 'Name', cell: (w) => w.name + (w.is_default ? ' (default)' : '') },
          { name: 'Slug', cell: (w) => <code>{w.slug}</code> },
          { name: 'Description', cell: (w) => w.description ?? '—' },
          ...(mayListMembers
            ? [
                {
                  name: 'Members',
                  cell: (w: Workspace) => (
                    <button type="button" className="link" onClick={() => setOpen(w)} aria-label={`Show the members of ${w.name}`}>
                      Show
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
      {open && (
        <section className="panel" aria-label={`Members of ${open.name}`}>
          <h2>Members of {open.name}</h2>
          <ResourceTable<WorkspaceMember & { id?: string }>
            path={`/v1/workspaces/${open.id}/users`}
            label="Members"
            columns={[
              { name: 'Email', cell: (m) => m.email },
              { name: 'Name', cell: (m) => [m.first_name, m.last_name].filter(Boolean).join(' ') || '—' },
              { name: 'Role', cell: (m) => m.role },
            ]}
          />
        </section>
      )}
    </section>
  );
}
