/** The organisation's users (role, removal) and its invitations (invite, resend, cancel). */
import { useState } from 'react';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import type { Invite, InviteWithToken, OrganisationRole, Page, User, Workspace, WorkspaceRole } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { ResourceTable } from '../components/resource-table';
import { SecretOnce } from '../components/secret-once';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useAsync } from '../use-async';
import { WorkspaceRoleSelect } from '../components/workspace-role-select';

const ORGANISATION_ROLES: OrganisationRole[] = ['owner', 'admin', 'member'];
const INVITED_ROLES = ['member', 'admin'] as const;

const fullName = (u: { first_name: string | null; last_name: string | null }) => [u.first_name, u.last_name].filter(Boolean).join(' ') || '—';

export function UsersPage() {
  const identity = useIdentity();
  const [refresh, setRefresh] = useState(0);
  const reload = () => setRefresh((n) => n + 1);
  const change = useAction();
  const mayUpdate = can(identity, 'users.update');
  const write = (method: 'PUT' | 'DELETE', user: User, body?: unknown) =>
    change.run(async () => {
      if (body) {
        const problem = bodyProblem('UpdateUser', body);
        if (problem) throw new FormProblem(problem);
      }
      await identity.api.send(method, `/v1/admin/users/${user.id}`, body);
      reload();
    });
  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title" tabIndex={-1}>
        Users
      </h1>
      <ErrorNote error={change.error} title="Not changed" />
      <ResourceTable<User>
        path="/v1/admin/users"
        label="Users"
        refresh={refresh}
        columns={[
          { name: 'Email', cell: (u) => u.email },
          { name: 'Name', cell: fullName },
          {
            name: 'Role',
            cell: (u) => (
              <select aria-label={`Role of ${u.email}`} value={u.role} disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs users.update'} onChange={(e) => void write('PUT', u, { role: e.target.value })}>
                {ORGANISATION_ROLES.map((role) => (
                  <option key={role} value={role}>
                    {role}
                  </option>
                ))}
              </select>
            ),
          },
          { name: 'Status', cell: (u) => u.status },
          { name: 'Workspaces', cell: (u) => String(u.workspaces.length) },
          { name: 'Actions', cell: (u) => <ConfirmButton verb="Remove" gerund="removing" name={u.email} scope="users.delete" allowed={can(identity, 'users.delete')} onConfirm={() => write('DELETE', u)} /> },
        ]}
      />
      <Invitations />
    </section>
  );
}

/** Invitations: a new one and a resent one show their token once (gw keeps only its hash). */
function Invitations() {
  const identity = useIdentity();
  const [refresh, setRefresh] = useState(0);
  const [inviting, setInviting] = useState(false);
  const [token, setToken] = useState<InviteWithToken>();
  const change = useAction();
  const mayInvite = can(identity, 'users.create');
  // With workspaces.list: names in the list, and workspaces the invitation can name (each with one role).
  const workspaces = useAsync(() => (can(identity, 'workspaces.list') ? identity.api.get<Page<Workspace>>('/v1/workspaces', { limit: 100 }).then((p) => p.data) : Promise.resolve([])), [identity.api]);
  const nameOf = (id: string) => workspaces.data?.find((w) => w.id === id)?.name ?? id;
  const shown = (invite: InviteWithToken) => {
    setToken(invite);
    setRefresh((n) => n + 1);
  };
  const resend = (invite: Invite) =>
    change.run(async () => {
      shown(await identity.api.send<InviteWithToken>('POST', `/v1/admin/users/invites/${invite.id}/resend`, {}));
    });
  const cancel = (invite: Invite) =>
    change.run(async () => {
      await identity.api.send('DELETE', `/v1/admin/users/invites/${invite.id}`);
      setRefresh((n) => n + 1);
    });
  const open = (i: Invite) => i.status === 'pending' || i.status === 'expired';
  return (
    <section aria-labelledby="invites-title">
      <h2 id="invites-title">Invitations</h2>
      <div className="actions">
        <button type="button" disabled={!mayInvite} title={mayInvite ? undefined : 'Needs users.create'} onClick={() => setInviting(true)}>
          Invite someone
        </button>
      </div>
      {inviting && (
        <InviteForm
          workspaces={workspaces.data ?? []}
          onInvited={(invite) => {
            setInviting(false);
            shown(invite);
          }}
          onCancel={() => setInviting(false)}
        />
      )}
      {token && <SecretOnce name={`the invitation of ${token.email}`} secret={token.token} onDone={() => setToken(undefined)} />}
      <ErrorNote error={change.error} title="Not changed" />
      <ResourceTable<Invite>
        path="/v1/admin/users/invites"
        label="Invitations"
        refresh={refresh}
        columns={[
          { name: 'Email', cell: (i) => i.email },
          { name: 'Role', cell: (i) => i.role },
          { name: 'Workspaces', cell: (i) => i.workspaces.map((w) => `${nameOf(w.workspace_id)} (${w.role})`).join(', ') || '—' },
          { name: 'Status', cell: (i) => i.status },
          { name: 'Expires', cell: (i) => (i.status === 'accepted' && i.accepted_at ? `accepted ${fmt.time(i.accepted_at)}` : fmt.time(i.expires_at)) },
          {
            name: 'Actions',
            cell: (i) =>
              open(i) && (
                <div className="row-actions">
                  <button type="button" className="secondary" disabled={!mayInvite} title={mayInvite ? undefined : 'Needs users.create'} onClick={() => void resend(i)} aria-label={`Resend the invitation of ${i.email}`}>
                    Resend
                  </button>
                  <ConfirmButton verb="Withdraw" gerund="withdrawing" name={`the invitation of ${i.email}`} scope="users.delete" allowed={can(identity, 'users.delete')} onConfirm={() => cancel(i)} />
                </div>
              ),
          },
        ]}
      />
    </section>
  );
}

function InviteForm({ workspaces, onInvited, onCancel }: { workspaces: Workspace[]; onInvited: (invite: InviteWithToken) => void; onCancel: () => void }) {
  const identity = useIdentity();
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<(typeof INVITED_ROLES)[number]>('member');
  const [chosen, setChosen] = useState<string[]>([]);
  const [workspaceRole, setWorkspaceRole] = useState<WorkspaceRole>('member');
  const [days, setDays] = useState('7');
  const toggle = (id: string, on: boolean) => setChosen((now) => (on ? [...now, id] : now.filter((w) => w !== id)));
  const invite = () =>
    action.run(async () => {
      const body: Record<string, unknown> = { email: email.trim(), role, expires_in_days: Number(days) };
      if (chosen.length) body.workspaces = chosen.map((workspace_id) => ({ workspace_id, role: workspaceRole }));
      const problem = bodyProblem('CreateInvite', body);
      if (problem) throw new FormProblem(problem);
      onInvited(await identity.api.send<InviteWithToken>('POST', '/v1/admin/users/invites', body));
    });
  return (
    <EditorPanel title="Invite someone" submitLabel="Send invitation" busy={action.busy} error={action.error} onSubmit={() => void invite()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Email">
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} maxLength={320} autoComplete="off" />
        </Field>
        <Field label="Organisation role">
          <select value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
            {INVITED_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Expires in days" hint="1 to 30">
          <input type="number" min={1} max={30} value={days} onChange={(e) => setDays(e.target.value)} />
        </Field>
      </div>
      {Boolean(workspaces.length) && (
        <fieldset className="filters">
          <legend>Workspaces to join</legend>
          {workspaces.map((w) => (
            <label key={w.id} className="check">
              <input type="checkbox" checked={chosen.includes(w.id)} onChange={(e) => toggle(w.id, e.target.checked)} />
              {w.name}
            </label>
          ))}
          <Field label="Workspace role">
            <WorkspaceRoleSelect value={workspaceRole} onChange={setWorkspaceRole} />
          </Field>
        </fieldset>
      )}
    </EditorPanel>
  );
}
