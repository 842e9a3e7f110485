/**
 * The new-key form: a role preset fills the scopes (the caller's own, grouped by resource, each
 * editable), and the same form sets the key's budget, rate limit and expiry, which gw keeps on
 * the key itself (`usage_limits`, `rate_limits`, `expires_at` of the create body).
 */
import { useState } from 'react';
import { groupScopes, matchingPreset, presetScopes, ROLE_PRESETS } from '../api/key-presets';
import { bodyProblem } from '../api/spec-validation';
import type { ApiKey, ApiKeyWithSecret } from '../api/types';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';

type BudgetType = '' | 'cost' | 'tokens' | 'requests';
type Reset = 'monthly' | 'weekly' | 'never';

interface LimitValues {
  budgetType: BudgetType;
  budget: string;
  reset: Reset;
  rateType: '' | 'requests' | 'tokens';
  rate: string;
  rateUnit: 'minute' | 'hour' | 'day';
  expires: string;
  /** allowed_models as typed: entries separated by commas or spaces; empty for every model. */
  models: string;
}

interface KeyFormValues extends LimitValues {
  name: string;
  kind: 'workspace' | 'organisation';
  workspace: string;
  scopes: string[];
}

/** The form's view of a key's stored limits (for editing them). */
function limitValuesOf(key: ApiKey): LimitValues {
  const budget = key.usage_limits;
  const rate = key.rate_limits?.[0];
  return {
    budgetType: budget?.type ?? '',
    budget: budget ? String(budget.credit_limit) : '',
    reset: budget?.periodic_reset ?? 'never',
    rateType: rate?.type ?? '',
    rate: rate ? String(rate.value) : '',
    rateUnit: rate?.unit ?? 'minute',
    expires: key.expires_at ? key.expires_at.slice(0, 10) : '',
    models: (key.allowed_models ?? []).join(', '),
  };
}

function modelList(typed: string): string[] | undefined {
  const entries = [...new Set(typed.split(/[\s,]+/).filter(Boolean))];
  return entries.length ? entries : undefined;
}

/** The key's limits as the spec's fields; `removed` says what an empty choice sends (null removes it on an update). */
function limitFields(values: LimitValues, removed: null | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = {
    usage_limits: values.budgetType ? { type: values.budgetType, credit_limit: Number(values.budget), ...(values.reset === 'never' ? {} : { periodic_reset: values.reset }) } : removed,
    rate_limits: values.rateType ? [{ type: values.rateType, unit: values.rateUnit, value: Number(values.rate) }] : removed,
    // The key stops working at the end of the chosen day (UTC).
    expires_at: values.expires ? new Date(`${values.expires}T23:59:59Z`).toISOString() : removed,
    allowed_models: modelList(values.models) ?? removed,
  };
  for (const name of Object.keys(body)) if (body[name] === undefined) delete body[name];
  return body;
}

/** The create body the spec takes (CreateWorkspaceServiceKey or CreateOrganisationServiceKey). */
function keyBody(values: KeyFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = { name: values.name.trim(), scopes: values.scopes };
  if (values.kind === 'workspace') body.workspace_id = values.workspace.trim();
  return { ...body, ...limitFields(values, undefined) };
}

export function CreateKeyForm({ onCreated, onCancel }: { onCreated: (key: ApiKeyWithSecret) => void; onCancel: () => void }) {
  const identity = useIdentity();
  const own = [...identity.scopes].sort();
  const [values, setValues] = useState<KeyFormValues>({
    name: '',
    kind: 'workspace',
    workspace: identity.workspaceId ?? identity.gatewayWorkspaceId ?? '',
    scopes: own.filter((s) => s === 'completions.write'),
    budgetType: '',
    budget: '',
    reset: 'monthly',
    rateType: '',
    rate: '',
    rateUnit: 'minute',
    expires: '',
    models: '',
  });
  const set = <K extends keyof KeyFormValues>(key: K, value: KeyFormValues[K]) => setValues((old) => ({ ...old, [key]: value }));
  const chosen = new Set(values.scopes);
  const preset = matchingPreset(chosen, own);
  const { busy, error, run } = useAction();

  const toggle = (scopes: string[], on: boolean) => {
    const next = new Set(chosen);
    for (const scope of scopes) {
      if (on) next.add(scope);
      else next.delete(scope);
    }
    set('scopes', own.filter((s) => next.has(s)));
  };

  const submit = () =>
    run(async () => {
      const body = keyBody(values);
      const organisation = values.kind === 'organisation';
      const problem = bodyProblem(organisation ? 'CreateOrganisationServiceKey' : 'CreateWorkspaceServiceKey', body);
      if (problem) throw new FormProblem(problem);
      const created = await identity.api.send<ApiKeyWithSecret>('POST', organisation ? '/v1/api-keys/organisation/service' : '/v1/api-keys/workspace/service', body);
      onCreated(created);
    });

  return (
    <EditorPanel title="New key" submitLabel="Create key" busy={busy} error={error} onSubmit={() => void submit()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Name">
          <input value={values.name} onChange={(e) => set('name', e.target.value)} maxLength={255} />
        </Field>
        {identity.organisationWide && (
          <Field label="Kind">
            <select value={values.kind} onChange={(e) => set('kind', e.target.value as KeyFormValues['kind'])}>
              <option value="workspace">Workspace service key</option>
              <option value="organisation">Organisation (admin) key</option>
            </select>
          </Field>
        )}
        {values.kind === 'workspace' && (
          <Field label="Workspace" hint="Id or slug">
            <input value={values.workspace} onChange={(e) => set('workspace', e.target.value)} readOnly={!identity.organisationWide} />
          </Field>
        )}
      </div>

      <LimitFields values={values} set={(key, value) => setValues((old) => ({ ...old, [key]: value }))} />
      <fieldset className="scopes">
        <legend>Scopes (only those you hold can be given)</legend>
        <Field label="Role preset" hint="Fills the scopes below with the role's set; change any tick after">
          <select
            value={preset}
            onChange={(e) => {
              const found = ROLE_PRESETS.find((p) => p.id === e.target.value);
              if (found) set('scopes', presetScopes(found, own));
            }}
          >
            {ROLE_PRESETS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
            <option value="custom" disabled>
              Custom
            </option>
          </select>
        </Field>
        <p className="hint" role="status">
          {chosen.size} of {own.length} scopes chosen
        </p>
        <div className="scope-groups">
          {groupScopes(own).map(([group, scopes]) => (
            <fieldset key={group} className="scope-group">
              <legend>
                <label className="check">
                  <input type="checkbox" checked={scopes.every((s) => chosen.has(s))} onChange={(e) => toggle(scopes, e.target.checked)} aria-label={`Every ${group} scope`} />
                  {group}
                </label>
              </legend>
              {scopes.map((scope) => (
                <label key={scope} className="check">
                  <input type="checkbox" checked={chosen.has(scope)} onChange={(e) => toggle([scope], e.target.checked)} />
                  {scope.slice(group.length + 1) || scope}
                  <span className="sr-only"> ({scope})</span>
                </label>
              ))}
            </fieldset>
          ))}
        </div>
      </fieldset>
    </EditorPanel>
  );
}

/** Models, expiry, budget and rate limit: on the new-key form and on a key's limits form. */
function LimitFields({ values, set }: { values: LimitValues; set: (key: keyof LimitValues, value: string) => void }) {
  return (
    <fieldset>
      <legend>Models, expiry, budget and rate limit (optional, on this key alone)</legend>
      <div className="filters">
        <Field label="Models allowed" hint="Empty for every model; else model names, @provider-slug/model or @provider-slug, separated by commas; * at the end matches a prefix">
          <input value={values.models} onChange={(e) => set('models', e.target.value)} placeholder="gpt-4o-mini, @openai-prod/*" />
        </Field>
        <Field label="Expires on" hint="Optional; the key stops at the end of that day (UTC)">
          <input type="date" value={values.expires} onChange={(e) => set('expires', e.target.value)} />
        </Field>
        <Field label="Budget counts">
          <select value={values.budgetType} onChange={(e) => set('budgetType', e.target.value)}>
            <option value="">No budget</option>
            <option value="cost">Cost (USD)</option>
            <option value="tokens">Tokens</option>
            <option value="requests">Requests</option>
          </select>
        </Field>
        {values.budgetType && (
          <>
            <Field label="Budget limit">
              <input type="number" min="0" step="any" inputMode="decimal" value={values.budget} onChange={(e) => set('budget', e.target.value)} />
            </Field>
            <Field label="Budget resets">
              <select value={values.reset} onChange={(e) => set('reset', e.target.value)}>
                <option value="monthly">Monthly (1st, UTC)</option>
                <option value="weekly">Weekly</option>
                <option value="never">Never</option>
              </select>
            </Field>
          </>
        )}
        <Field label="Rate limit counts">
          <select value={values.rateType} onChange={(e) => set('rateType', e.target.value)}>
            <option value="">No rate limit</option>
            <option value="requests">Requests</option>
            <option value="tokens">Tokens</option>
          </select>
        </Field>
        {values.rateType && (
          <>
            <Field label="Rate limit">
              <input type="number" min="1" step="1" inputMode="numeric" value={values.rate} onChange={(e) => set('rate', e.target.value)} />
            </Field>
            <Field label="Per">
              <select value={values.rateUnit} onChange={(e) => set('rateUnit', e.target.value)}>
                <option value="minute">minute</option>
                <option value="hour">hour</option>
                <option value="day">day</option>
              </select>
            </Field>
          </>
        )}
      </div>
    </fieldset>
  );
}

/** Changes a key's models, expiry, budget and rate limit (emptied, each is removed). */
export function EditLimitsForm({ apiKey, onSaved, onCancel }: { apiKey: ApiKey; onSaved: () => void; onCancel: () => void }) {
  const identity = useIdentity();
  const [values, setValues] = useState<LimitValues>(limitValuesOf(apiKey));
  const { busy, error, run } = useAction();
  const submit = () =>
    run(async () => {
      const body = limitFields(values, null);
      const problem = bodyProblem('UpdateApiKey', body);
      if (problem) throw new FormProblem(problem);
      await identity.api.send('PUT', `/v1/api-keys/${apiKey.id}`, body);
      onSaved();
    });
  return (
    <EditorPanel title={`Limits of ${apiKey.name}`} submitLabel="Save limits" busy={busy} error={error} onSubmit={() => void submit()} onCancel={onCancel}>
      <LimitFields values={values} set={(key, value) => setValues((old) => ({ ...old, [key]: value }))} />
    </EditorPanel>
  );
}
