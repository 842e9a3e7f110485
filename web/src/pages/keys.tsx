import { useState, type FormEvent } from 'react';
import { can } from '../api/identity';
import type { ApiKey, ApiKeyWithSecret, Page, Scope } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { Field } from '../components/field';
import { SecretOnce } from '../components/secret-once';
import { ErrorNote, Loading, Empty } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { useAsync } from '../use-async';

export function KeysPage() {
  const identity = useIdentity();
  const { api } = identity;
  const keys = useAsync(() => api.get<Page<ApiKey>>('/v1/api-keys', { limit: 100 }), [api]);
  const [secret, setSecret] = useState<{ name: string; key: string }>();
  const [error, setError] = useState<unknown>();

  const act = async (run: () => Promise<void>) => {
    setError(undefined);
    try {
      await run();
      keys.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const rotate = (key: ApiKey) =>
    act(async () => {
      const rotated = await api.send<ApiKeyWithSecret>('POST', `/v1/api-keys/${key.id}/rotate`, {});
      setSecret({ name: rotated.name, key: rotated.key });
    });
  const revoke = (key: ApiKey) =>
    act(async () => {
      await api.send('DELETE', `/v1/api-keys/${key.id}`);
    });

  const mayUpdate = can(identity, 'api_keys.update');
  const mayDelete = can(identity, 'api_keys.delete');
  const active = keys.data?.data.filter((k) => k.status === 'active') ?? [];
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title" tabIndex={-1}>
        API keys
      </h1>
      {secret && <SecretOnce name={secret.name} secret={secret.key} onDone={() => setSecret(undefined)} />}
      {can(identity, 'api_keys.create') && <CreateKey onCreated={(k) => (setSecret({ name: k.name, key: k.key }), keys.reload())} />}
      <ErrorNote error={error ?? keys.error} title="API keys" />
      {keys.loading && !keys.data && <Loading what="Loading keys" />}
      {keys.data && active.length === 0 && <Empty>No active keys.</Empty>}
      {active.length > 0 && (
        <table aria-label="Active API keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {active.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  {key.type} {key.sub_type}
                </td>
                <td className="mono">{key.masked_key}</td>
                <td>{key.scopes.length}</td>
                <td>{fmt.time(key.created_at)}</td>
                <td className="row-actions">
                  <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs api_keys.update'} onClick={() => void rotate(key)} aria-label={`Rotate ${key.name}`}>
                    Rotate
                  </button>
                  <ConfirmButton verb="Revoke" gerund="revoking" name={key.name} scope="api_keys.delete" allowed={mayDelete} onConfirm={() => revoke(key)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: ApiKeyWithSecret) => void }) {
  const identity = useIdentity();
  const own = [...identity.scopes].sort() as Scope[];
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'workspace' | 'organisation'>('workspace');
  const [workspace, setWorkspace] = useState(identity.workspaceId ?? identity.gatewayWorkspaceId ?? '');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(own.filter((s) => s === 'completions.write')));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = { name: name.trim(), scopes: [...scopes] };
      const created =
        kind === 'organisation'
          ? await identity.api.send<ApiKeyWithSecret>('POST', '/v1/api-keys/organisation/service', body)
          : await identity.api.send<ApiKeyWithSecret>('POST', '/v1/api-keys/workspace/service', { ...body, workspace_id: workspace });
      setName('');
      onCreated(created);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const toggle = (scope: Scope) =>
    setScopes((old) => {
      const next = new Set(old);
      if (next.has(scope)) next.delete(scope);
      else next.add(scope);
      return next;
    });

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-key-title">
      <h2 id="new-key-title">New key</h2>
      <div className="filters">
        <Field label="Name">
          <input required value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        {identity.organisationWide && (
          <Field label="Kind">
            <select value={kind} onChange={(e) => setKind(e.target.value as 'workspace' | 'organisation')}>
              <option value="workspace">Workspace service key</option>
              <option value="organisation">Organisation (admin) key</option>
            </select>
          </Field>
        )}
        {kind === 'workspace' && (
          <Field label="Workspace" hint="Id or slug">
            <input required value={workspace} onChange={(e) => setWorkspace(e.target.value)} readOnly={!identity.organisationWide} />
          </Field>
        )}
      </div>
      <fieldset className="scopes">
        <legend>Scopes (only those this key holds can be given)</legend>
        <div className="actions">
          <button type="button" className="link" onClick={() => setScopes(new Set(own))}>
            Select all
          </button>
          <button type="button" className="link" onClick={() => setScopes(new Set())}>
            Select none
          </button>
        </div>
        <div className="scope-grid">
          {own.map((scope) => (
            <label key={scope} className="check">
              <input type="checkbox" checked={scopes.has(scope)} onChange={() => toggle(scope)} />
              {scope}
            </label>
          ))}
        </div>
      </fieldset>
      <button type="submit" disabled={busy || !name.trim() || scopes.size === 0}>
        Create key
      </button>
      <ErrorNote error={error} title="Could not create the key" />
    </form>
  );
}
