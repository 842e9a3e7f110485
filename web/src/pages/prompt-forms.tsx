/** A prompt's template form: used for a new prompt and for a new version of one. */
import { useState } from 'react';
import { can } from '../api/identity';
import { bodyProblem, parseJson } from '../api/spec-validation';
import type { Page, Prompt, Provider } from '../api/types';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useAsync } from '../use-async';

const STARTER = JSON.stringify([{ role: 'system', content: 'You are concise.' }, { role: 'user', content: 'Hello {{name}}' }], null, 2);

/** The template as the person wrote it: JSON messages when it reads as a list, else one plain string. */
function templateOf(text: string): unknown {
  if (!text.trim().startsWith('[')) return text;
  const parsed = parseJson(text);
  if ('problem' in parsed) throw new FormProblem(`template: ${parsed.problem}`);
  return parsed.value;
}

/** `existing` given: the form saves a new version of it (PUT with patch); else it creates a prompt. */
export function PromptForm({ existing, onSaved, onCancel }: { existing?: Prompt; onSaved: (message: string) => void; onCancel: () => void }) {
  const identity = useIdentity();
  const { api } = identity;
  const action = useAction();
  const providers = useAsync(() => (can(identity, 'virtual_keys.list') ? api.get<Page<Provider>>('/v1/providers', { limit: 100 }).then((p) => p.data) : Promise.resolve(undefined)), [api]);
  const [name, setName] = useState(existing?.name ?? '');
  const [slug, setSlug] = useState('');
  const [model, setModel] = useState(existing?.model ?? 'gpt-4o-mini');
  const [provider, setProvider] = useState(existing?.virtual_key ?? '');
  const [template, setTemplate] = useState(existing ? (typeof existing.string === 'string' ? existing.string : JSON.stringify(existing.string, null, 2)) : STARTER);
  const [note, setNote] = useState('');

  const save = () =>
    action.run(async () => {
      const fields: Record<string, unknown> = { string: templateOf(template), model: model || null, virtual_key: provider || null };
      if (note) fields.version_description = note;
      if (existing) {
        const body = { ...fields, patch: true };
        const problem = bodyProblem('UpdatePrompt', body);
        if (problem) throw new FormProblem(problem);
        const updated = await api.send<{ prompt_version: number; new_version: boolean }>('PUT', `/v1/prompts/${existing.id}`, body);
        onSaved(updated.new_version ? `Saved as version ${updated.prompt_version} (not the default until you make it so).` : 'Nothing changed: same as the latest version.');
      } else {
        const body = { name, ...(slug ? { slug } : {}), ...fields };
        const problem = bodyProblem('CreatePrompt', body);
        if (problem) throw new FormProblem(problem);
        await api.send('POST', '/v1/prompts', body);
        onSaved(`Created ${name}.`);
      }
    });

  return (
    <EditorPanel title={existing ? `New version of ${existing.name}` : 'New prompt'} submitLabel={existing ? 'Save new version' : 'Create prompt'} busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        {!existing && (
          <>
            <Field label="Name">
              <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
            </Field>
            <Field label="Slug" hint="Optional">
              <input value={slug} onChange={(e) => setSlug(e.target.value)} />
            </Field>
          </>
        )}
        <Field label="Model">
          <input value={model} onChange={(e) => setModel(e.target.value)} />
        </Field>
        {providers.data ? (
          <Field label="Provider">
            <select value={provider} onChange={(e) => setProvider(e.target.value)}>
              <option value="">None</option>
              {[...new Set([...providers.data.map((p) => `@${p.slug}`), ...(provider ? [provider] : [])])].map((slug) => (
                <option key={slug} value={slug}>
                  {slug}
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <Field label="Provider" hint="@slug of a saved provider">
            <input value={provider} onChange={(e) => setProvider(e.target.value)} />
          </Field>
        )}
        <Field label="Version note" hint="Optional">
          <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
        </Field>
      </div>
      <Field label="Template" hint="Chat messages as JSON, or plain text sent as one user message; variables as {{name}}">
        <textarea className="code-editor" rows={8} spellCheck={false} value={template} onChange={(e) => setTemplate(e.target.value)} />
      </Field>
    </EditorPanel>
  );
}
