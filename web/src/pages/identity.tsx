/** SSO and SCIM setup: the OIDC identity provider, SCIM tokens, and SCIM groups mapped to workspaces. */
import { useState } from 'react';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import type { ScimToken, ScimTokenWithSecret, SsoSettings, SsoStatus } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { ResourceTable } from '../components/resource-table';
import { SecretInput } from '../components/secret-input';
import { SecretOnce } from '../components/secret-once';
import { ErrorNote, Loading } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useAsync } from '../use-async';
import { ScimMappings } from './scim-mappings';

export function IdentityPage() {
  const identity = useIdentity();
  return (
    <section aria-labelledby="identity-title">
      <h1 id="identity-title" tabIndex={-1}>
        SSO and SCIM
      </h1>
      <Sso />
      <ScimTokens />
      {can(identity, 'workspace_users.list') && <ScimMappings />}
    </section>
  );
}

/**
 * gw answers 404 for settings never saved. To keep the page quiet, it first asks the public
 * status; only when SSO is on does it read the settings, else *Load stored settings* reads them
 * (settings saved and turned off).
 */
function Sso() {
  const identity = useIdentity();
  const [round, setRound] = useState(0);
  const [askStored, setAskStored] = useState(false);
  const removal = useAction();
  const status = useAsync(() => identity.api.get<SsoStatus>('/v1/auth/sso/status', { organisation: identity.organisationId }), [identity.api, identity.organisationId, round]);
  const settings = useAsync(
    () => (status.data?.enabled || askStored ? identity.api.get<SsoSettings>('/v1/admin/organisation/sso').catch((e: { status?: number }) => (e.status === 404 ? null : Promise.reject(e))) : Promise.resolve(null)),
    [identity.api, status.data?.enabled, askStored, round],
  );
  const mayUpdate = can(identity, 'organisation_settings.update');
  const saved = () => setRound((n) => n + 1);
  const s = settings.data ?? undefined;
  const remove = () =>
    removal.run(async () => {
      await identity.api.send('DELETE', '/v1/admin/organisation/sso');
      setAskStored(false);
      saved();
    });
  const ready = status.data && !settings.loading;
  return (
    <section aria-labelledby="sso-title">
      <h2 id="sso-title">Single sign-on (OIDC)</h2>
      <ErrorNote error={status.error ?? settings.error} title="Could not load the SSO settings" />
      {!ready && !status.error && !settings.error && <Loading what="Loading SSO settings" />}
      {ready && (
        <>
          <p role="status">{status.data!.enabled ? 'SSO sign-in is on: the sign-in page offers “Sign in with SSO”.' : s ? 'SSO settings are stored but turned off.' : 'SSO sign-in is off.'}</p>
          {!status.data!.enabled && !askStored && (
            <div className="actions">
              <button type="button" className="secondary" onClick={() => setAskStored(true)}>
                Load stored settings
              </button>
            </div>
          )}
          {s && (
            <dl className="facts" aria-label="SSO settings">
              <div>
                <dt>Issuer</dt>
                <dd>{s.issuer}</dd>
              </div>
              <div>
                <dt>Client ID</dt>
                <dd>{s.client_id}</dd>
              </div>
              <div>
                <dt>Email domains</dt>
                <dd>{s.email_domains.join(', ') || 'any'}</dd>
              </div>
              <div>
                <dt>Redirect URL to register</dt>
                <dd>
                  <code>{s.redirect_uri}</code>
                </dd>
              </div>
              <div>
                <dt>Sign-in URL</dt>
                <dd>
                  <code>{s.sign_in_url}</code>
                </dd>
              </div>
              <div>
                <dt>Client secret</dt>
                <dd>{s.client_secret ?? 'none (public client)'}</dd>
              </div>
              <div>
                <dt>Updated</dt>
                <dd>{fmt.time(s.updated_at)}</dd>
              </div>
            </dl>
          )}
          {mayUpdate ? <SsoForm key={`${round}-${s?.updated_at ?? 'new'}`} existing={s} onSaved={saved} /> : <p className="hint">Changing them needs organisation_settings.update.</p>}
          {s && <ConfirmButton verb="Delete" gerund="deleting" name="the SSO settings" scope="organisation_settings.update" allowed={mayUpdate} onConfirm={remove} />}
          <ErrorNote error={removal.error} title="Not deleted" />
        </>
      )}
    </section>
  );
}

function SsoForm({ existing, onSaved }: { existing?: SsoSettings; onSaved: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const [enabled, setEnabled] = useState(existing?.enabled ?? true);
  const [issuer, setIssuer] = useState(existing?.issuer ?? '');
  const [clientId, setClientId] = useState(existing?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [publicClient, setPublicClient] = useState(existing ? existing.client_secret === null : false);
  const [domains, setDomains] = useState((existing?.email_domains ?? []).join(', '));
  const [role, setRole] = useState<'member' | 'admin'>(existing?.default_role ?? 'member');
  const save = () =>
    action.run(async () => {
      const body: Record<string, unknown> = { enabled, issuer: issuer.trim(), client_id: clientId.trim(), default_role: role };
      body.email_domains = domains.split(/[\s,]+/).filter(Boolean);
      // An empty secret box keeps the stored secret (the field is left out); a public client sends null.
      if (publicClient) body.client_secret = null;
      else if (secret) body.client_secret = secret;
      const problem = bodyProblem('UpdateSsoSettings', body);
      if (problem) throw new FormProblem(problem);
      await api.send('PUT', '/v1/admin/organisation/sso', body);
      onSaved();
    });
  return (
    <EditorPanel title={existing ? 'Edit the SSO settings' : 'Set up SSO'} submitLabel="Save SSO settings" busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onSaved}>
      <div className="filters">
        <Field label="Issuer" hint="gw reads <issuer>/.well-known/openid-configuration">
          <input type="url" value={issuer} onChange={(e) => setIssuer(e.target.value)} maxLength={2048} />
        </Field>
        <Field label="Client ID">
          <input value={clientId} onChange={(e) => setClientId(e.target.value)} maxLength={512} autoComplete="off" />
        </Field>
        {!publicClient && <SecretInput label="Client secret" value={secret} onChange={setSecret} masked={existing?.client_secret} />}
        <Field label="Email domains" hint="Comma-separated; empty for any">
          <input value={domains} onChange={(e) => setDomains(e.target.value)} />
        </Field>
        <Field label="Role of new users">
          <select value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        <label className="check">
          <input type="checkbox" checked={publicClient} onChange={(e) => setPublicClient(e.target.checked)} />
          Public client (PKCE only, no secret)
        </label>
        <label className="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          SSO sign-in on
        </label>
      </div>
    </EditorPanel>
  );
}

/** SCIM tokens: the identity provider's bearer token, shown once with the SCIM base URL. */
function ScimTokens() {
  const identity = useIdentity();
  const [refresh, setRefresh] = useState(0);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ScimTokenWithSecret>();
  const revocation = useAction();
  const mayUpdate = can(identity, 'organisation_settings.update');
  const revoke = (t: ScimToken) =>
    revocation.run(async () => {
      await identity.api.send('DELETE', `/v1/admin/scim/tokens/${t.id}`);
      setRefresh((n) => n + 1);
    });
  return (
    <section aria-labelledby="scim-tokens-title">
      <h2 id="scim-tokens-title">SCIM tokens</h2>
      <div className="actions">
        <button type="button" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs organisation_settings.update'} onClick={() => setCreating(true)}>
          New SCIM token
        </button>
      </div>
      {creating && (
        <ScimTokenForm
          onCreated={(token) => {
            setCreating(false);
            setCreated(token);
            setRefresh((n) => n + 1);
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {created && (
        <>
          <SecretOnce name={created.name} secret={created.token} onDone={() => setCreated(undefined)} />
          <p>
            SCIM base URL for the identity provider: <code>{created.scim_base_url}</code>
          </p>
        </>
      )}
      <ErrorNote error={revocation.error} title="Not revoked" />
      <ResourceTable<ScimToken>
        path="/v1/admin/scim/tokens"
        label="SCIM tokens"
        refresh={refresh}
        columns={[
          { name: 'Name', cell: (t) => t.name },
          { name: 'Token', cell: (t) => <code>{t.masked_token}</code> },
          { name: 'Created', cell: (t) => fmt.time(t.created_at) },
          { name: 'Actions', cell: (t) => <ConfirmButton verb="Revoke" gerund="revoking" name={t.name} scope="organisation_settings.update" allowed={mayUpdate} onConfirm={() => revoke(t)} /> },
        ]}
      />
    </section>
  );
}

function ScimTokenForm({ onCreated, onCancel }: { onCreated: (token: ScimTokenWithSecret) => void; onCancel: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const [name, setName] = useState('');
  const create = () =>
    action.run(async () => {
      const body = { name: name.trim() };
      const problem = bodyProblem('CreateScimToken', body);
      if (problem) throw new FormProblem(problem);
      onCreated(await api.send<ScimTokenWithSecret>('POST', '/v1/admin/scim/tokens', body));
    });
  return (
    <EditorPanel title="New SCIM token" submitLabel="Create SCIM token" busy={action.busy} error={action.error} onSubmit={() => void create()} onCancel={onCancel}>
      <Field label="Token name">
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
      </Field>
    </EditorPanel>
  );
}
