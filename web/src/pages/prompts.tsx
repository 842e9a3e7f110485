import { useState, type FormEvent } from 'react';
import { can } from '../api/identity';
import type { Prompt, RenderPromptResponse } from '../api/types';
import { Field } from '../components/field';
import { JsonView } from '../components/json-view';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';

/** The prompt library, with a render preview: what gw would send for given variables (POST /v1/prompts/{id}/render). */
export function PromptsPage() {
  const identity = useIdentity();
  const [open, setOpen] = useState<Prompt>();
  return (
    <section aria-labelledby="prompts-title">
      <h1 id="prompts-title" tabIndex={-1}>
        Prompts
      </h1>
      <ResourceTable<Prompt>
        path="/v1/prompts"
        label="Prompts"
        columns={[
          { name: 'Name', cell: (p) => p.name },
          { name: 'Slug', cell: (p) => <code>{p.slug}</code> },
          { name: 'Version', cell: (p) => `${p.prompt_version} (default ${p.default_version})` },
          { name: 'Updated', cell: (p) => fmt.time(p.last_updated_at) },
          {
            name: 'Preview',
            cell: (p) => (
              <button type="button" className="link" disabled={!can(identity, 'completions.write')} onClick={() => setOpen(p)} aria-label={`Preview ${p.name}`}>
                Render
              </button>
            ),
          },
        ]}
      />
      {open && <RenderPreview prompt={open} />}
    </section>
  );
}

function RenderPreview({ prompt }: { prompt: Prompt }) {
  const { api } = useIdentity();
  const [variables, setVariables] = useState('{}');
  const [result, setResult] = useState<RenderPromptResponse>();
  const [error, setError] = useState<unknown>();
  const render = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      setResult(await api.send<RenderPromptResponse>('POST', `/v1/prompts/${prompt.id}/render`, { variables: JSON.parse(variables) as unknown }));
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form className="panel" onSubmit={render} aria-label={`Render ${prompt.name}`}>
      <h2>Render {prompt.name}</h2>
      <Field label="Variables (JSON)">
        <textarea className="code-editor" rows={4} value={variables} onChange={(e) => setVariables(e.target.value)} spellCheck={false} />
      </Field>
      <button type="submit">Render</button>
      <ErrorNote error={error} title="Could not render" />
      {result && <JsonView value={result.data} label="Rendered request" />}
    </form>
  );
}
