/** Labels (production, staging, … and the organisation's own): listed, created and deleted. */
import { useState } from 'react';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import type { Label } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote } from '../components/status';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';

/** `onChanged` tells the prompt versions' label selects to load the labels again. */
export function LabelsSection({ onChanged }: { onChanged: () => void }) {
  const identity = useIdentity();
  const [creating, setCreating] = useState(false);
  const [refresh, setRefresh] = useState(0);
  const removal = useAction();
  const changed = () => {
    setRefresh((n) => n + 1);
    onChanged();
  };
  const remove = (label: Label) =>
    removal.run(async () => {
      await identity.api.send('DELETE', `/v1/labels/${label.id}`);
      changed();
    });
  return (
    <section aria-labelledby="labels-title">
      <h2 id="labels-title">Labels</h2>
      {can(identity, 'labels.create') && !creating && (
        <button type="button" onClick={() => setCreating(true)}>
          New label
        </button>
      )}
      {creating && (
        <LabelForm
          onSaved={() => {
            setCreating(false);
            changed();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <ErrorNote error={removal.error} title="Not deleted" />
      <ResourceTable<Label>
        path="/v1/labels"
        label="Labels"
        refresh={refresh}
        columns={[
          { name: 'Name', cell: (l) => (l.color_code ? <span style={{ borderLeft: `0.8em solid ${l.color_code}`, paddingLeft: '0.4em' }}>{l.name}</span> : l.name) },
          { name: 'Description', cell: (l) => l.description ?? '—' },
          { name: 'Scope', cell: (l) => (l.is_universal ? 'built in' : l.workspace_id ? 'this workspace' : 'organisation') },
          {
            name: 'Actions',
            cell: (l) =>
              l.is_universal ? (
                '—'
              ) : (
                <ConfirmButton verb="Delete" gerund="deleting" name={`label ${l.name}`} scope="labels.delete" allowed={can(identity, 'labels.delete')} onConfirm={() => remove(l)} />
              ),
          },
        ]}
      />
    </section>
  );
}

function LabelForm({ onSaved, onCancel }: { onSaved: () => void; onCancel: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [color, setColor] = useState('');
  const save = () =>
    action.run(async () => {
      const body = { name, ...(description ? { description } : {}), ...(color ? { color_code: color } : {}) };
      const problem = bodyProblem('CreateLabel', body);
      if (problem) throw new FormProblem(problem);
      await api.send('POST', '/v1/labels', body);
      onSaved();
    });
  return (
    <EditorPanel title="New label" submitLabel="Create label" busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Label name" hint="Letters, digits, - _ and .; not latest or default">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={64} />
        </Field>
        <Field label="Label description" hint="Optional">
          <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />
        </Field>
        <Field label="Colour" hint="Optional: #rrggbb">
          <input value={color} onChange={(e) => setColor(e.target.value)} placeholder="#2f7d32" />
        </Field>
      </div>
    </EditorPanel>
  );
}
