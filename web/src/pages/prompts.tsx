import { useState } from 'react';
import { can } from '../api/identity';
import { parseJson } from '../api/spec-validation';
import type { Label, Page, Prompt, PromptSummary, PromptVersion, RenderPromptResponse } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { Field } from '../components/field';
import { JsonView } from '../components/json-view';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote, Loading } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useAsync } from '../use-async';
import { CollectionsSection } from './prompt-collections';
import { PromptForm } from './prompt-forms';
import { LabelsSection } from './prompt-labels';
import { PartialsSection } from './prompt-partials';

/** The prompt library: new prompts and versions, labels and the default version, a render preview; partials, collections and labels. */
export function PromptsPage() {
  const identity = useIdentity();
  const [open, setOpen] = useState<PromptSummary>();
  const [creating, setCreating] = useState(false);
  const [refresh, setRefresh] = useState(0);
  const [note, setNote] = useState<string>();
  const [labelsRound, setLabelsRound] = useState(0);
  const removal = useAction();
  const remove = (p: PromptSummary) =>
    removal.run(async () => {
      await identity.api.send('DELETE', `/v1/prompts/${p.id}`);
      if (open?.id === p.id) setOpen(undefined);
      setRefresh((n) => n + 1);
    });
  return (
    <section aria-labelledby="prompts-title">
      <h1 id="prompts-title" tabIndex={-1}>
        Prompts
      </h1>
      {can(identity, 'prompts.create') && (
        <div className="actions">
          <button type="button" onClick={() => setCreating(true)}>
            New prompt
          </button>
        </div>
      )}
      {creating && (
        <PromptForm
          onSaved={(message) => {
            setCreating(false);
            setNote(message);
            setRefresh((n) => n + 1);
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {note && <p role="status">{note}</p>}
      <ErrorNote error={removal.error} title="Not deleted" />
      <ResourceTable<PromptSummary>
        path="/v1/prompts"
        label="Prompts"
        refresh={refresh}
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Slug', cell: (p) => <code>{p.slug}</code> },
          { name: 'Versions', cell: (p) => `default ${p.default_version}, latest ${p.latest_version}` },
          { name: 'Updated', cell: (p) => fmt.time(p.last_updated_at) },
          {
            name: 'Actions',
            cell: (p) => (
              <div className="row-actions">
                <button type="button" className="secondary" onClick={() => setOpen(p)} aria-label={`Open ${p.name}`}>
                  Open
                </button>
                <ConfirmButton verb="Delete" gerund="deleting" name={p.name} scope="prompts.delete" allowed={can(identity, 'prompts.delete')} onConfirm={() => remove(p)} />
              </div>
            ),
          },
        ]}
      />
      {open && <PromptDetail key={open.id} prompt={open} labelsRound={labelsRound} onChanged={() => setRefresh((n) => n + 1)} />}
      {can(identity, 'prompt_partials.list') && <PartialsSection />}
      {can(identity, 'collections.list') && <CollectionsSection />}
      {can(identity, 'labels.list') && <LabelsSection onChanged={() => setLabelsRound((n) => n + 1)} />}
    </section>
  );
}

function PromptDetail({ prompt, labelsRound, onChanged }: { prompt: PromptSummary; labelsRound: number; onChanged: () => void }) {
  const identity = useIdentity();
  const { api } = identity;
  const [versioning, setVersioning] = useState(false);
  const [note, setNote] = useState<string>();
  // The latest version's template is what a new version starts from.
  const latest = useAsync(() => (can(identity, 'prompts.read') ? api.get<Prompt>(`/v1/prompts/${encodeURIComponent(prompt.id)}@latest`) : Promise.resolve(undefined)), [api, prompt.id]);
  const versions = useAsync(() => (can(identity, 'prompts.read') ? api.get<Page<PromptVersion>>(`/v1/prompts/${prompt.id}/versions`, { limit: 100 }).then((p) => p.data) : Promise.resolve([])), [api, prompt.id]);
  const labels = useAsync(() => (can(identity, 'labels.list') ? api.get<Page<Label>>('/v1/labels', { limit: 100 }).then((p) => p.data) : Promise.resolve([])), [api, labelsRound]);
  const change = useAction();
  const mayUpdate = can(identity, 'prompts.update');
  const write = (path: string, body: unknown) =>
    change.run(async () => {
      await api.send('PUT', path, body);
      versions.reload();
      onChanged();
    });
  const labelName = (id: string | null) => (id ? (labels.data?.find((l) => l.id === id)?.name ?? id) : '');

  return (
    <section className="panel" aria-labelledby="prompt-detail-title">
      <h2 id="prompt-detail-title">{prompt.name}</h2>
      <p className="hint">
        Address it as <code>{prompt.slug}</code>, <code>{prompt.slug}@3</code> (a version) or <code>{prompt.slug}@production</code> (a label).
      </p>
      {mayUpdate && latest.data && !versioning && (
        <button type="button" onClick={() => setVersioning(true)}>
          New version
        </button>
      )}
      {versioning && latest.data && (
        <PromptForm
          existing={latest.data}
          onSaved={(message) => {
            setVersioning(false);
            setNote(message);
            latest.reload();
            versions.reload();
            onChanged();
          }}
          onCancel={() => setVersioning(false)}
        />
      )}
      {note && <p role="status">{note}</p>}
      <h3>Versions</h3>
      <ErrorNote error={latest.error ?? versions.error ?? change.error} />
      {!versions.data && !versions.error && <Loading what="Loading versions" />}
      {versions.data && versions.data.length > 0 && (
        <div className="table-scroll">
          <table aria-label={`Versions of ${prompt.name}`}>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Note</th>
                <th scope="col">Created</th>
                <th scope="col">Label</th>
                <th scope="col">Default</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.map((v) => (
                <tr key={v.id}>
                  <td>{v.prompt_version}</td>
                  <td>{v.prompt_description ?? '—'}</td>
                  <td>{fmt.time(v.created_at)}</td>
                  <td>
                    {labels.data && labels.data.length > 0 ? (
                      <select aria-label={`Label of version ${v.prompt_version}`} value={v.label_id ?? ''} disabled={!mayUpdate} onChange={(e) => void write(`/v1/prompts/${prompt.id}/versions/${v.prompt_version}`, { label_id: e.target.value || null })}>
                        <option value="">No label</option>
                        {labels.data.map((l) => (
                          <option key={l.id} value={l.id}>
                            {l.name}
                          </option>
                        ))}
                      </select>
                    ) : (
                      labelName(v.label_id) || '—'
                    )}
                  </td>
                  <td>
                    {v.is_default ? (
                      <strong>default</strong>
                    ) : (
                      <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs prompts.update'} onClick={() => void write(`/v1/prompts/${prompt.id}/makeDefault`, { version: v.prompt_version })} aria-label={`Make version ${v.prompt_version} the default`}>
                        Make default
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {can(identity, 'completions.write') && <RenderPreview prompt={prompt} versions={versions.data?.map((v) => v.prompt_version) ?? []} />}
    </section>
  );
}

/** What gw would send for given variables (POST /v1/prompts/{id}/render), for the default or a chosen version. */
function RenderPreview({ prompt, versions }: { prompt: PromptSummary; versions: number[] }) {
  const { api } = useIdentity();
  const [variables, setVariables] = useState('{}');
  const [version, setVersion] = useState('');
  const [result, setResult] = useState<RenderPromptResponse>();
  const action = useAction();
  const render = () =>
    action.run(async () => {
      const parsed = parseJson(variables);
      if ('problem' in parsed) throw new FormProblem(`variables: ${parsed.problem}`);
      const address = encodeURIComponent(prompt.id) + (version ? `@${version}` : '');
      setResult(await api.send<RenderPromptResponse>('POST', `/v1/prompts/${address}/render`, { variables: parsed.value }));
    });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void render();
      }}
      aria-label={`Render ${prompt.name}`}
    >
      <h3>Render preview</h3>
      <div className="filters">
        <Field label="Version to render">
          <select value={version} onChange={(e) => setVersion(e.target.value)}>
            <option value="">The default</option>
            {versions.map((n) => (
              <option key={n} value={String(n)}>
                Version {n}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Variables (JSON)">
        <textarea className="code-editor small" rows={4} value={variables} onChange={(e) => setVariables(e.target.value)} spellCheck={false} />
      </Field>
      <button type="submit" disabled={action.busy}>
        Render
      </button>
      <ErrorNote error={action.error} title="Could not render" />
      {result && <JsonView value={result.data} label="Rendered request" />}
    </form>
  );
}
