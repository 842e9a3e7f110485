import { useState } from 'react';
import { can } from '../api/identity';
import { bodyProblem } from '../api/spec-validation';
import type { Guardrail } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { EditorPanel } from '../components/editor-panel';
import { CodeEditor } from '../components/code-editor/code-editor';
import { Field } from '../components/field';
import { ResourceTable } from '../components/resource-table';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useEditing } from '../use-editing';
import { isArray, useJsonMirror } from '../use-json-mirror';
import { ChecksForm, type Check } from './guardrail-checks';

const STARTER_CHECKS: Check[] = [{ id: 'default.regexMatch', parameters: { rule: '\\d{3}-\\d{2}-\\d{4}' } }];

export function GuardrailsPage() {
  const identity = useIdentity();
  const list = useEditing<Guardrail>();
  const removal = useAction();
  const mayUpdate = can(identity, 'guardrails.update');
  const remove = (g: Guardrail) =>
    removal.run(async () => {
      await identity.api.send('DELETE', `/v1/guardrails/${g.id}`);
      list.reload();
    });
  return (
    <section aria-labelledby="guardrails-title">
      <h1 id="guardrails-title" tabIndex={-1}>
        Guardrails
      </h1>
      <p className="hint">Attach a guardrail to a config by its slug in <code>input_guardrails</code> or <code>output_guardrails</code>.</p>
      {can(identity, 'guardrails.create') && (
        <div className="actions">
          <button type="button" onClick={list.startNew}>
            New guardrail
          </button>
        </div>
      )}
      {list.editing && <GuardrailForm key={list.formKey} {...list.formProps} />}
      <ErrorNote error={removal.error} title="Not deleted" />
      <ResourceTable<Guardrail>
        path="/v1/guardrails"
        label="Guardrails"
        refresh={list.refresh}
        columns={[
          { name: 'Name', cell: (g) => g.name },
          { name: 'Slug', cell: (g) => <code>{g.slug}</code> },
          { name: 'Checks', cell: (g) => (g.checks as Array<{ id?: string }>).map((c) => c.id ?? '?').join(', ') },
          { name: 'On failure', cell: (g) => ((g.actions as { deny?: boolean }).deny ? 'deny' : 'monitor') },
          { name: 'Updated', cell: (g) => fmt.time(g.updated_at) },
          {
            name: 'Actions',
            cell: (g) => (
              <div className="row-actions">
                <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs guardrails.update'} onClick={() => list.edit(g)} aria-label={`Edit ${g.name}`}>
                  Edit
                </button>
                <ConfirmButton verb="Delete" gerund="deleting" name={g.name} scope="guardrails.delete" allowed={can(identity, 'guardrails.delete')} onConfirm={() => remove(g)} />
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}

/** Name, the checks as JSON (checked against the spec before saving) and what a failure does. */
export function GuardrailForm({ existing, onSaved, onCancel }: { existing?: Guardrail; onSaved: () => void; onCancel: () => void }) {
  const { api } = useIdentity();
  const action = useAction();
  const actions = (existing?.actions ?? {}) as { deny?: boolean; hold_stream?: boolean };
  const [name, setName] = useState(existing?.name ?? '');
  const [slug, setSlug] = useState(existing?.slug ?? '');
  const checks = useJsonMirror<Check[]>(existing ? (existing.checks as Check[]) : STARTER_CHECKS, isArray);
  const [deny, setDeny] = useState(actions.deny ?? false);
  const [holdStream, setHoldStream] = useState(actions.hold_stream ?? false);
  const [failOnError, setFailOnError] = useState(existing?.failOnError ?? false);
  const [timeout, setTimeoutMs] = useState(String(existing?.timeout_ms ?? 10000));

  const save = () =>
    action.run(async () => {
      if (checks.broken) throw new FormProblem(`checks: ${checks.broken}`);
      const body: Record<string, unknown> = { name, checks: checks.value, actions: { deny, hold_stream: holdStream }, failOnError, timeout_ms: Number(timeout) };
      if (!existing && slug) body.slug = slug;
      const problem = bodyProblem(existing ? 'UpdateGuardrail' : 'CreateGuardrail', body);
      if (problem) throw new FormProblem(problem);
      if (existing) await api.send('PUT', `/v1/guardrails/${existing.id}`, body);
      else await api.send('POST', '/v1/guardrails', body);
      onSaved();
    });

  return (
    <EditorPanel title={existing ? `Edit guardrail ${existing.name}` : 'New guardrail'} submitLabel={existing ? 'Save guardrail' : 'Create guardrail'} busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        <Field label="Slug" hint={existing ? 'Set at creation' : 'Optional'}>
          <input value={slug} onChange={(e) => setSlug(e.target.value)} readOnly={Boolean(existing)} />
        </Field>
        <Field label="Timeout (ms)">
          <input type="number" min={1} max={60000} value={timeout} onChange={(e) => setTimeoutMs(e.target.value)} />
        </Field>
      </div>
      <div className="side-by-side">
        <fieldset disabled={Boolean(checks.broken)} className="plain">
          <legend>Checks as a form</legend>
          {checks.broken && <p className="error">The form shows the last valid checks until the JSON is fixed.</p>}
          <ChecksForm checks={checks.value} onChange={checks.fromForm} />
        </fieldset>
        <CodeEditor label="Checks (JSON)" hint='A list of {"id": "default.…", "parameters": {…}}; checked against the spec as you type' value={checks.text} onChange={checks.fromJson} schema="UpdateGuardrail" wrapKey="checks" problem={checks.broken} />
      </div>
      <fieldset>
        <legend>When a check fails</legend>
        <label className="check">
          <input type="checkbox" checked={deny} onChange={(e) => setDeny(e.target.checked)} />
          Deny the request (446); otherwise only monitor
        </label>
        <label className="check">
          <input type="checkbox" checked={holdStream} onChange={(e) => setHoldStream(e.target.checked)} />
          Hold streamed answers until checked
        </label>
        <label className="check">
          <input type="checkbox" checked={failOnError} onChange={(e) => setFailOnError(e.target.checked)} />
          A check that cannot run fails
        </label>
      </fieldset>
    </EditorPanel>
  );
}
