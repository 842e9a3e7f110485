import { useState } from 'react';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import type { Page, User, Workspace, WorkspaceMember, WorkspaceRole } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote } from '../components/status';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useEditing } from '../use-editing';
import { useAsync } from '../use-async';
import { WorkspaceRoleSelect } from '../components/workspace-role-select';


export function WorkspacesPage() {
  const identity = useIdentity();
  const [open, setOpen] = useState<Workspace>();
  const list = useEditing<Workspace>();
  const removal = useAction();
  const mayListMembers = can(identity, 'workspace_users.list');
  const mayUpdate = can(identity, 'workspaces.update');
  const remove = (w: Workspace) =>
    removal.run(async () => {
      await identity.api.send('DELETE', `/v1/workspaces/${w.id}`);
      if (open?.id === w.id) setOpen(undefined);
      list.reload();
    });
  return (
    <section aria-labelledby="workspaces-title">
      <h1 id="workspaces-title" tabIndex={-1}>
        Workspaces
      </h1>
      {can(identity, 'workspaces.create') && (
        <div className="actions">
          <button type="button" onClick={list.startNew}>
            New workspace
          </button>
        </div>
      )}
      {list.editing && <WorkspaceForm key={list.formKey} {...list.formProps} />}
      <ErrorNote error={removal.error} title="Not deleted" />
      <ResourceTable<Workspace>
        path="/v1/workspaces"
        label="Workspaces"
        refresh={list.refresh}
        columns={[
          { name: 'Name', cell: (w) => w.name + (w.is_default ? ' (default)' : '') },
          { name: 'Slug', cell: (w) => <code>{w.slug}</code> },
          { name: 'Description', cell: (w) => w.description ?? '—' },
          {
            name: 'Actions',
            cell: (w) => (
              <div className="row-actions">
                {mayListMembers && (
                  <button type="button" className="secondary" onClick={() => setOpen(w)} aria-label={`Show the members of ${w.name}`}>
                    Members
                  </button>
                )}
                <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs workspaces.update'} onClick={() => list.edit(w)} aria-label={`Edit ${w.name}`}>
                  Edit
                </button>
                {!w.is_default && <ConfirmButton verb="Delete" gerund="deleting" name={w.name} scope="workspaces.delete" allowed={can(identity, 'workspaces.delete')} onConfirm={() => remove(w)} />}
              </div>
            ),
          },
        ]}
      />
      {open && <Members key={open.id} workspace={open} />}
    </section>
  );
}

function WorkspaceForm({ existing, onSaved, onCancel }: { existing?: Workspace; onSaved: () => void; onCancel: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const [name, setName] = useState(existing?.name ?? '');
  const [slug, setSlug] = useState(existing?.slug ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const save = () =>
    action.run(async () => {
      const body: Record<string, unknown> = { name };
      if (description || existing?.description) body.description = description || null;
      if (!existing && slug) body.slug = slug;
      const problem = bodyProblem(existing ? 'UpdateWorkspace' : 'CreateWorkspace', body);
      if (problem) throw new FormProblem(problem);
      if (existing) await api.send('PUT', `/v1/workspaces/${existing.id}`, body);
      else await api.send('POST', '/v1/workspaces', body);
      onSaved();
    });
  return (
    <EditorPanel title={existing ? `Edit workspace ${existing.name}` : 'New workspace'} submitLabel={existing ? 'Save workspace' : 'Create workspace'} busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        <Field label="Slug" hint={existing ? 'Set at creation' : 'Optional'}>
          <input value={slug} onChange={(e) => setSlug(e.target.value)} readOnly={Boolean(existing)} />
        </Field>
        <Field label="Description">
          <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1024} />
        </Field>
      </div>
    </EditorPanel>
  );
}

/** A workspace's members: add one with a role, change a role, remove one. */
function Members({ workspace }: { workspace: Workspace }) {
  const identity = useIdentity();
  const { api } = identity;
  const [refresh, setRefresh] = useState(0);
  const change = useAction();
  const mayUpdate = can(identity, 'workspace_users.update');
  const write = (method: 'PUT' | 'DELETE', userId: string, body?: unknown) =>
    change.run(async () => {
      await api.send(method, `/v1/workspaces/${workspace.id}/users/${userId}`, body);
      setRefresh((n) => n + 1);
    });
  return (
    <section className="panel" aria-labelledby="members-title">
      <h2 id="members-title">Members of {workspace.name}</h2>
      {can(identity, 'workspace_users.create') && <AddMember workspace={workspace} onAdded={() => setRefresh((n) => n + 1)} />}
      <ErrorNote error={change.error} title="Not changed" />
      <ResourceTable<WorkspaceMember & { id?: string }>
        path={`/v1/workspaces/${workspace.id}/users`}
        label="Members"
        refresh={refresh}
        rowKey={(m) => m.user_id}
        columns={[
          { name: 'Email', cell: (m) => m.email },
          { name: 'Name', cell: (m) => [m.first_name, m.last_name].filter(Boolean).join(' ') || '—' },
          {
            name: 'Role',
            cell: (m) => (
              <WorkspaceRoleSelect aria-label={`Role of ${m.email}`} value={m.role} disabled={!mayUpdate} onChange={(role) => void write('PUT', m.user_id, { role })} />
            ),
          },
          { name: 'Actions', cell: (m) => <ConfirmButton verb="Remove" gerund="removing" name={m.email} scope="workspace_users.delete" allowed={can(identity, 'workspace_users.delete')} onConfirm={() => write('DELETE', m.user_id)} /> },
        ]}
      />
    </section>
  );
}

function AddMember({ workspace, onAdded }: { workspace: Workspace; onAdded: () => void }) {
  const identity = useIdentity();
  const action = useAction();
  // With users.list the person is picked from the organisation's users; otherwise by user id.
  const users = useAsync(() => (can(identity, 'users.list') ? identity.api.get<Page<User>>('/v1/admin/users', { limit: 100 }).then((p) => p.data.filter((u) => u.status === 'active')) : Promise.resolve(undefined)), [identity.api]);
  const [user, setUser] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('member');
  const add = () =>
    action.run(async () => {
      const body = { user_id: user, role };
      const problem = bodyProblem('AddWorkspaceMember', body);
      if (problem) throw new FormProblem(problem);
      await identity.api.send('POST', `/v1/workspaces/${workspace.id}/users`, body);
      setUser('');
      onAdded();
    });
  return (
    <form
      className="filters"
      aria-label={`Add a member to ${workspace.name}`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      {users.data ? (
        <Field label="User">
          <select value={user} onChange={(e) => setUser(e.target.value)}>
            <option value="">Choose a user</option>
            {users.data.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email}
              </option>
            ))}
          </select>
        </Field>
      ) : (
        <Field label="User id">
          <input value={user} onChange={(e) => setUser(e.target.value)} />
        </Field>
      )}
      <Field label="Role">
        <WorkspaceRoleSelect value={role} onChange={setRole} />
      </Field>
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          Add member
        </button>
      </div>
      <div className="actions">
        <ErrorNote error={action.error} title="Not added" />
      </div>
    </form>
  );
}
