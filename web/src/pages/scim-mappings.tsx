/** SCIM groups and the workspaces their members join (GET/POST /v1/scim/workspaces, GET /v1/scim/groups). */
import { useState } from 'react';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import type { Page, ScimGroupList, ScimMapping, ScimMappingList, Workspace, WorkspaceRole } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { Empty, ErrorNote, Loading } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useAsync } from '../use-async';
import { WorkspaceRoleSelect } from '../components/workspace-role-select';


export function ScimMappings() {
  const identity = useIdentity();
  const { api } = identity;
  const [round, setRound] = useState(0);
  const [adding, setAdding] = useState(false);
  const removal = useAction();
  // These two lists answer their own shapes ({mappings}, {groups}), not the list envelope.
  const mappings = useAsync(() => api.get<ScimMappingList>('/v1/scim/workspaces', { page_size: 500 }), [api, round]);
  const groups = useAsync(() => api.get<ScimGroupList>('/v1/scim/groups', { page_size: 500 }), [api, round]);
  const workspaces = useAsync(() => (can(identity, 'workspaces.list') ? api.get<Page<Workspace>>('/v1/workspaces', { limit: 100 }).then((p) => p.data) : Promise.resolve([])), [api]);
  const workspaceName = (id: string) => workspaces.data?.find((w) => w.id === id)?.name ?? id;
  const remove = (m: ScimMapping) =>
    removal.run(async () => {
      await api.send('DELETE', `/v1/scim/workspaces/${m.id}`);
      setRound((n) => n + 1);
    });
  const mayCreate = can(identity, 'workspace_users.create');
  return (
    <section aria-labelledby="scim-mappings-title">
      <h2 id="scim-mappings-title">SCIM groups and workspaces</h2>
      <p className="hint">The members of a mapped group join the workspace with the role; an archived mapping ends the memberships it made.</p>
      <div className="actions">
        <button type="button" disabled={!mayCreate} title={mayCreate ? undefined : 'Needs workspace_users.create'} onClick={() => setAdding(true)}>
          Map a group
        </button>
      </div>
      {adding && (
        <MappingForm
          groups={groups.data?.groups.map((g) => g.display_name) ?? []}
          workspaces={workspaces.data ?? []}
          onSaved={() => {
            setAdding(false);
            setRound((n) => n + 1);
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      <ErrorNote error={mappings.error ?? removal.error} title="SCIM mappings" />
      {!mappings.data && !mappings.error && <Loading what="Loading SCIM mappings" />}
      {mappings.data && !mappings.data.mappings.length && <Empty>No group is mapped to a workspace yet.</Empty>}
      {Boolean(mappings.data?.mappings.length) && (
        <div className="table-scroll">
          <table aria-label="SCIM mappings">
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Workspace</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {mappings.data!.mappings.map((m) => (
                <tr key={m.id}>
                  <td>{m.scim_group}</td>
                  <td>{workspaceName(m.workspace_id)}</td>
                  <td>{m.role}</td>
                  <td>{fmt.time(m.created_at)}</td>
                  <td>
                    <ConfirmButton verb="Archive" gerund="archiving" name={`the mapping of ${m.scim_group}`} scope="workspace_users.delete" allowed={can(identity, 'workspace_users.delete')} onConfirm={() => remove(m)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>Groups pushed by the identity provider</h3>
      <ErrorNote error={groups.error} title="Could not load SCIM groups" />
      {groups.data && !groups.data.groups.length && <Empty>No SCIM group yet.</Empty>}
      {Boolean(groups.data?.groups.length) && (
        <div className="table-scroll">
          <table aria-label="SCIM groups">
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">External id</th>
                <th scope="col">Members</th>
              </tr>
            </thead>
            <tbody>
              {groups.data!.groups.map((g) => (
                <tr key={g.id}>
                  <td>{g.display_name}</td>
                  <td>{g.external_id ?? '—'}</td>
                  <td>{g.members_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A group by name (one SCIM has pushed, or a name gw creates until it does) mapped to a workspace. */
function MappingForm({ groups, workspaces, onSaved, onCancel }: { groups: string[]; workspaces: Workspace[]; onSaved: () => void; onCancel: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const [group, setGroup] = useState('');
  const [workspace, setWorkspace] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('member');
  const save = () =>
    action.run(async () => {
      const body = { scim_group_name: group.trim(), workspace_id: workspace.trim(), role };
      const problem = bodyProblem('CreateScimMapping', body);
      if (problem) throw new FormProblem(problem);
      await api.send('POST', '/v1/scim/workspaces', body);
      onSaved();
    });
  return (
    <EditorPanel title="Map a SCIM group to a workspace" submitLabel="Save mapping" busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Group name" hint="A group the identity provider pushes; created now if it has not yet">
          <input value={group} onChange={(e) => setGroup(e.target.value)} list="scim-group-names" maxLength={255} />
        </Field>
        <datalist id="scim-group-names">
          {groups.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        {workspaces.length ? (
          <Field label="Workspace">
            <select value={workspace} onChange={(e) => setWorkspace(e.target.value)}>
              <option value="">Choose a workspace</option>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <Field label="Workspace id or slug">
            <input value={workspace} onChange={(e) => setWorkspace(e.target.value)} />
          </Field>
        )}
        <Field label="Role">
          <WorkspaceRoleSelect value={role} onChange={setRole} />
        </Field>
      </div>
    </EditorPanel>
  );
}
