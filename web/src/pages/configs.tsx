import { useEffect, useState, type FormEvent } from 'react';
import { configProblem } from '../api/spec-validation';
import { can } from '../api/identity';
import type { ConfigRecord, ConfigVersion, CreateConfig, Page, Provider } from '../api/types';
import { CodeEditor } from '../components/code-editor/code-editor';
import { Field } from '../components/field';
import { JsonView } from '../components/json-view';
import { ErrorNote, Loading, Empty } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { Link, navigate } from '../router';
import { useAsync } from '../use-async';
import { isObject, useJsonMirror } from '../use-json-mirror';
import { ConfigForm, type ConfigNode } from './config-form';

const STARTER: ConfigNode = { strategy: { mode: 'fallback' }, targets: [{ provider: '@my-provider' }, { provider: '@my-backup' }] };

export function ConfigsPage({ rest }: { rest: string }) {
  const id = rest.replace(/^\//, '');
  if (id) return <ConfigEditor id={id === 'new' ? undefined : decodeURIComponent(id)} />;
  return <ConfigList />;
}

function ConfigList() {
  const identity = useIdentity();
  const configs = useAsync(() => identity.api.get<Page<ConfigRecord>>('/v1/configs', { limit: 100 }), [identity.api]);
  return (
    <section aria-labelledby="configs-title">
      <h1 id="configs-title" tabIndex={-1}>
        Configs
      </h1>
      {can(identity, 'configs.create') && (
        <p>
          <Link to="/configs/new" className="button">
            New config
          </Link>
        </p>
      )}
      <ErrorNote error={configs.error} title="Could not load configs" />
      {configs.loading && !configs.data && <Loading what="Loading configs" />}
      {configs.data && configs.data.data.length === 0 && <Empty>No configs yet.</Empty>}
      {configs.data && configs.data.data.length > 0 && (
        <table aria-label="Configs">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Slug</th>
              <th scope="col">Version</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {configs.data.data.map((config) => (
              <tr key={config.id}>
                <td>
                  <Link to={`/configs/${config.id}`}>{config.name}</Link>
                </td>
                <td className="mono">{config.slug}</td>
                <td>{config.version}</td>
                <td>{fmt.time(config.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * A config as a form beside its JSON (CodeMirror, checked against the spec's Config schema), kept
 * in step both ways: a form change rewrites the JSON; JSON that parses to an object refills the
 * form; JSON that does not parse leaves the form on the last good config, locked until it is fixed.
 */
function ConfigEditor({ id }: { id: string | undefined }) {
  const identity = useIdentity();
  const { api } = identity;
  const existing = useAsync(() => (id ? api.get<ConfigRecord>(`/v1/configs/${id}`) : Promise.resolve(undefined)), [api, id]);
  const versions = useAsync(() => (id ? api.get<Page<ConfigVersion>>(`/v1/configs/${id}/versions`, { limit: 50 }) : Promise.resolve(undefined)), [api, id]);
  const providers = useAsync(() => (can(identity, 'virtual_keys.list') ? api.get<Page<Provider>>('/v1/providers', { limit: 100 }).then((p) => p.data.map((v) => `@${v.slug}`)) : Promise.resolve([])), [api]);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const mirror = useJsonMirror<ConfigNode>(STARTER, isObject);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string>();
  const { text, broken: jsonBroken } = mirror;
  const fromForm = (next: ConfigNode) => {
    mirror.fromForm(next);
    setProblem(null);
  };
  const fromJson = (next: string) => {
    mirror.fromJson(next);
    setProblem(null);
  };

  useEffect(() => {
    if (existing.data) {
      setName(existing.data.name);
      setSlug(existing.data.slug);
      fromForm(existing.data.config);
    }
  }, [existing.data]);

  const mayWrite = can(identity, id ? 'configs.update' : 'configs.create');
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(undefined);
    setError(undefined);
    const found = configProblem(text);
    setProblem(found);
    if (found) return;
    const body = JSON.parse(text) as CreateConfig['config'];
    try {
      if (id) {
        const updated = await api.send<ConfigRecord>('PUT', `/v1/configs/${id}`, { name, config: body });
        setSaved(`Saved as version ${updated.version}.`);
        versions.reload();
      } else {
        const created = await api.send<ConfigRecord>('POST', '/v1/configs', { name, config: body, ...(slug ? { slug } : {}) });
        navigate(`/configs/${created.id}`);
      }
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="config-title">
      <p>
        <Link to="/configs">← All configs</Link>
      </p>
      <h1 id="config-title" tabIndex={-1}>
        {id ? `Config ${existing.data?.name ?? ''}` : 'New config'}
      </h1>
      <ErrorNote error={existing.error} title="Could not load the config" />
      <form onSubmit={save} aria-label="Config editor">
        <div className="filters">
          <Field label="Name">
            <input required value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
          </Field>
          <Field label="Slug" hint={id ? 'Set at creation' : 'Optional: used in x-gw-config'}>
            <input value={slug} onChange={(e) => setSlug(e.target.value)} readOnly={Boolean(id)} pattern="[a-z0-9][a-z0-9-]*" />
          </Field>
        </div>
        <div className="side-by-side">
          <fieldset disabled={Boolean(jsonBroken)} className="plain">
            <legend>Config</legend>
            {jsonBroken && (
              <p className="error" data-testid="form-locked">
                The form shows the last valid config until the JSON is fixed: {jsonBroken}
              </p>
            )}
            <ConfigForm config={mirror.value} onChange={fromForm} providers={providers.data ?? []} />
          </fieldset>
          <CodeEditor label="Config (JSON)" hint="The same config as JSON, checked against gw's Config schema as you type" value={text} onChange={fromJson} schema="Config" problem={problem ?? jsonBroken} rows={20} />
        </div>
        <div className="actions">
          <button type="submit" disabled={!mayWrite} title={mayWrite ? undefined : 'This key cannot change configs'}>
            {id ? 'Save new version' : 'Create config'}
          </button>
          {saved && <span role="status">{saved}</span>}
        </div>
        <ErrorNote error={error} title="gw refused the config" />
      </form>
      {id && (
        <section aria-labelledby="versions-title">
          <h2 id="versions-title">Version history</h2>
          <ErrorNote error={versions.error} />
          {versions.data && (
            <ol className="versions">
              {versions.data.data.map((v) => (
                <li key={v.id}>
                  <details>
                    <summary>
                      Version {v.version} · {fmt.time(v.created_at)}
                    </summary>
                    <JsonView value={v.config} label={`Config version ${v.version}`} />
                    <button type="button" className="secondary" onClick={() => fromForm(v.config)}>
                      Load into the editor
                    </button>
                  </details>
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
    </section>
  );
}
