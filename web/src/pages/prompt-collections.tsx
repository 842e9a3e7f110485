/** Prompt collections (folders of prompts and partials): listed, created, renamed, deleted. */
import { useState } from 'react';
import type { components } from '../../../generated/types';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote } from '../components/status';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useEditing } from '../use-editing';

type Collection = components['schemas']['Collection'];

export function CollectionsSection() {
  const identity = useIdentity();
  const list = useEditing<Collection>();
  const removal = useAction();
  const mayUpdate = can(identity, 'collections.update');
  const remove = (c: Collection) =>
    removal.run(async () => {
      await identity.api.send('DELETE', `/v1/collections/${c.id}`);
      list.reload();
    });
  return (
    <section aria-labelledby="collections-title">
      <h2 id="collections-title">Collections</h2>
      {can(identity, 'collections.create') && !list.editing && (
        <button type="button" onClick={list.startNew}>
          New collection
        </button>
      )}
      {list.editing && <CollectionForm key={list.formKey} {...list.formProps} />}
      <ErrorNote error={removal.error} title="Not deleted" />
      <ResourceTable<Collection>
        path="/v1/collections"
        label="Collections"
        refresh={list.refresh}
        columns={[
          { name: 'Name', cell: (c) => (c.is_default ? `${c.name} (default)` : c.name) },
          { name: 'Slug', cell: (c) => <code>{c.slug}</code> },
          { name: 'Prompts', cell: (c) => c.collection_details?.prompts_count ?? '—' },
          {
            name: 'Actions',
            cell: (c) => (
              <div className="row-actions">
                <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs collections.update'} onClick={() => list.edit(c)} aria-label={`Rename collection ${c.name}`}>
                  Rename
                </button>
                {!c.is_default && <ConfirmButton verb="Delete" gerund="deleting" name={`collection ${c.name}`} scope="collections.delete" allowed={can(identity, 'collections.delete')} onConfirm={() => remove(c)} />}
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}

function CollectionForm({ existing, onSaved, onCancel }: { existing?: Collection; onSaved: () => void; onCancel: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const [name, setName] = useState(existing?.name ?? '');
  const [slug, setSlug] = useState('');
  const [parent, setParent] = useState('');
  const save = () =>
    action.run(async () => {
      const body = existing ? { name } : { name, ...(slug ? { slug } : {}), ...(parent ? { parent_collection_id: parent } : {}) };
      const problem = bodyProblem(existing ? 'UpdateCollection' : 'CreateCollection', body);
      if (problem) throw new FormProblem(problem);
      if (existing) await api.send('PUT', `/v1/collections/${existing.id}`, body);
      else await api.send('POST', '/v1/collections', body);
      onSaved();
    });
  return (
    <EditorPanel title={existing ? `Rename collection ${existing.name}` : 'New collection'} submitLabel={existing ? 'Save collection' : 'Create collection'} busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Collection name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        {!existing && (
          <>
            <Field label="Collection slug" hint="Optional">
              <input value={slug} onChange={(e) => setSlug(e.target.value)} />
            </Field>
            <Field label="Inside collection" hint="Optional: the parent's id or slug">
              <input value={parent} onChange={(e) => setParent(e.target.value)} />
            </Field>
          </>
        )}
      </div>
    </EditorPanel>
  );
}
