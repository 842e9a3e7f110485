/** Prompt partials (`{{>slug}}` inside a template): listed, created, edited as a new version, made default, deleted. */
import { useState } from 'react';
import type { components } from '../../../generated/types';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useEditing } from '../use-editing';
import { useAsync } from '../use-async';

type PromptPartial = components['schemas']['PromptPartial'];
const PATH = '/v1/prompts/partials';

export function PartialsSection() {
  const identity = useIdentity();
  const list = useEditing<PromptPartial>();
  const change = useAction();
  const mayUpdate = can(identity, 'prompt_partials.update');
  const write = (send: () => Promise<unknown>) =>
    change.run(async () => {
      await send();
      list.reload();
    });
  return (
    <section aria-labelledby="partials-title">
      <h2 id="partials-title">Partials</h2>
      <p className="hint">
        A partial is a piece of template shared by prompts: write <code>{'{{>slug}}'}</code> in a prompt to include its default version.
      </p>
      {can(identity, 'prompt_partials.create') && !list.editing && (
        <button type="button" onClick={list.startNew}>
          New partial
        </button>
      )}
      {list.editing && <PartialForm key={list.formKey} {...list.formProps} />}
      <ErrorNote error={change.error} title="Not saved" />
      <ResourceTable<PromptPartial>
        path={PATH}
        label="Partials"
        refresh={list.refresh}
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Include as', cell: (p) => <code>{`{{>${p.slug}}}`}</code> },
          { name: 'Versions', cell: (p) => `default ${p.default_version}, latest ${p.latest_version}` },
          { name: 'Updated', cell: (p) => fmt.time(p.last_updated_at) },
          {
            name: 'Actions',
            cell: (p) => (
              <div className="row-actions">
                <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs prompt_partials.update'} onClick={() => list.edit(p)} aria-label={`Edit partial ${p.name}`}>
                  Edit
                </button>
                {p.latest_version !== p.default_version && (
                  <button type="button" className="secondary" disabled={!mayUpdate} onClick={() => void write(() => identity.api.send('PUT', `${PATH}/${p.id}/makeDefault`, { version: p.latest_version }))} aria-label={`Make version ${p.latest_version} of ${p.name} the default`}>
                    Make v{p.latest_version} default
                  </button>
                )}
                <ConfirmButton verb="Delete" gerund="deleting" name={`partial ${p.name}`} scope="prompt_partials.delete" allowed={can(identity, 'prompt_partials.delete')} onConfirm={() => write(() => identity.api.send('DELETE', `${PATH}/${p.id}`))} />
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}

/** A new partial, or a new version of one (its text starts from the latest version; saving never makes it the default). */
function PartialForm({ existing, onSaved, onCancel }: { existing?: PromptPartial; onSaved: () => void; onCancel: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const latest = useAsync(() => (existing ? api.get<PromptPartial>(`${PATH}/${encodeURIComponent(existing.id)}@latest`) : Promise.resolve(undefined)), [api, existing?.id]);
  const [name, setName] = useState(existing?.name ?? '');
  const [slug, setSlug] = useState('');
  const [text, setText] = useState<string>();
  const [note, setNote] = useState('');
  const template = text ?? latest.data?.string ?? '';
  const save = () =>
    action.run(async () => {
      const fields = { string: template, ...(note ? { version_description: note } : {}) };
      if (existing) {
        const body = { ...(name !== existing.name ? { name } : {}), ...fields };
        const problem = bodyProblem('UpdatePromptPartial', body);
        if (problem) throw new FormProblem(problem);
        await api.send('PUT', `${PATH}/${existing.id}`, body);
      } else {
        const body = { name, ...(slug ? { slug } : {}), ...fields };
        const problem = bodyProblem('CreatePromptPartial', body);
        if (problem) throw new FormProblem(problem);
        await api.send('POST', PATH, body);
      }
      onSaved();
    });
  return (
    <EditorPanel title={existing ? `New version of partial ${existing.name}` : 'New partial'} submitLabel={existing ? 'Save partial version' : 'Create partial'} busy={action.busy} error={action.error ?? latest.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Partial name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        {!existing && (
          <Field label="Partial slug" hint="Optional: what {{>slug}} names">
            <input value={slug} onChange={(e) => setSlug(e.target.value)} />
          </Field>
        )}
        <Field label="Partial version note" hint="Optional">
          <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
        </Field>
      </div>
      <Field label="Partial text" hint="Mustache text; variables as {{name}}">
        <textarea className="code-editor small" rows={5} spellCheck={false} value={template} onChange={(e) => setText(e.target.value)} />
      </Field>
    </EditorPanel>
  );
}
