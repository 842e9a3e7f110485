/** Create and edit forms for usage-limit and rate-limit policies, checked against the spec before sending. */
import { useId, useState } from 'react';
import { bodyProblem } from '../api/spec-validation';
import { can } from '../api/identity';
import type { ValidatedSchema } from '../api/validated-schemas';
import type { Page, RateLimitsPolicy, UsageLimitsPolicy, Workspace } from '../api/types';
import { CodeEditor } from '../components/code-editor/code-editor';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useAsync } from '../use-async';
import { isObject, useJsonMirror } from '../use-json-mirror';
import { put } from './config-form';

interface FormProps<T> {
  existing?: T;
  onSaved: () => void;
  onCancel: () => void;
}

type Row = Record<string, unknown>;
type Rules = { conditions?: Row[]; group_by?: Row[]; [key: string]: unknown };

const rulesOf = (existing?: { conditions?: unknown; group_by?: unknown }): Rules => ({ conditions: (existing?.conditions as Row[] | undefined) ?? [], group_by: (existing?.group_by as Row[] | undefined) ?? [] });

/** conditions and group_by from the rows (or their JSON), refused while the JSON does not parse. */
function sharedFields(rules: ReturnType<typeof useJsonMirror<Rules>>): Rules {
  if (rules.broken) throw new FormProblem(`conditions and group by: ${rules.broken}`);
  return rules.value;
}

function useSave(schema: [ValidatedSchema, ValidatedSchema], path: string, existingId: string | undefined, onSaved: () => void) {
  const { api } = useIdentity();
  const action = useAction();
  const save = (body: () => Record<string, unknown>) =>
    action.run(async () => {
      const value = body();
      const problem = bodyProblem(existingId ? schema[1] : schema[0], value);
      if (problem) throw new FormProblem(problem);
      if (existingId) await api.send('PUT', `${path}/${existingId}`, value);
      else await api.send('POST', path, value);
      onSaved();
    });
  return { ...action, save };
}

/**
 * Where a new policy applies, for a key that sees several workspaces (an organisation key): the
 * whole organisation (nothing sent) or one workspace. A workspace key's policies are its workspace's.
 */
function WorkspaceChoice({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const identity = useIdentity();
  const mayList = can(identity, 'workspaces.list');
  const workspaces = useAsync(() => (mayList ? identity.api.get<Page<Workspace>>('/v1/workspaces', { limit: 100 }).then((p) => p.data) : Promise.resolve(undefined)), [identity.api, mayList]);
  if (!identity.organisationWide) return null;
  if (!workspaces.data) {
    return (
      <Field label="Workspace" hint="Optional: an id or slug; empty applies to the whole organisation">
        <input value={value} onChange={(e) => onChange(e.target.value)} />
      </Field>
    );
  }
  return (
    <Field label="Workspace">
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">The whole organisation</option>
        {workspaces.data.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

const KEY_HINT = 'api_key, workspace_id or metadata.<name>';

/** A list of rows, each a few text fields of one object; keys the row does not show are kept. */
function Rows({ legend, noun, rows, fields, onChange, empty }: { legend: string; noun: string; rows: Row[]; fields: Array<{ key: string; label: string; hint?: string }>; onChange: (rows: Row[]) => void; empty: Row }) {
  const listId = useId();
  return (
    <fieldset>
      <legend>{legend}</legend>
      <datalist id={listId}>
        <option value="api_key" />
        <option value="workspace_id" />
        <option value="metadata." />
      </datalist>
      {rows.map((row, index) => (
        <div className="filters" key={index}>
          {fields.map((f) => (
            <Field key={f.key} label={`${noun} ${index + 1} ${f.label}`} hint={f.hint}>
              <input
                list={f.key === 'key' ? listId : undefined}
                value={typeof row[f.key] === 'string' ? (row[f.key] as string) : ''}
                onChange={(e) => onChange(rows.map((r, i) => (i === index ? put(r, f.key, e.target.value === '' && f.key !== 'key' ? undefined : e.target.value) : r)))}
              />
            </Field>
          ))}
          <button type="button" className="secondary" onClick={() => onChange(rows.filter((_, i) => i !== index))}>
            Remove {noun.toLowerCase()} {index + 1}
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...rows, empty])}>
        Add {noun.toLowerCase()}
      </button>
    </fieldset>
  );
}

/** Conditions and group-by as rows, with their JSON beside (checked against the policy's update schema). */
function GroupAndConditions({ rules, schema }: { rules: ReturnType<typeof useJsonMirror<Rules>>; schema: ValidatedSchema }) {
  const value = rules.value;
  return (
    <div className="side-by-side">
      <fieldset disabled={Boolean(rules.broken)} className="plain">
        <legend>Where the policy applies</legend>
        {rules.broken && <p className="error">The rows show the last valid JSON until it is fixed.</p>}
        <Rows
          legend="Conditions (all must hold; none: every request)"
          noun="Condition"
          rows={value.conditions ?? []}
          empty={{ key: 'metadata.', value: '' }}
          fields={[
            { key: 'key', label: 'key', hint: KEY_HINT },
            { key: 'value', label: 'value', hint: '* for any value' },
            { key: 'excludes', label: 'excludes', hint: 'Optional' },
          ]}
          onChange={(conditions) => rules.fromForm(put(value, 'conditions', conditions))}
        />
        <Rows
          legend="Group by (one counter per value; none: one shared counter)"
          noun="Group"
          rows={value.group_by ?? []}
          empty={{ key: 'api_key' }}
          fields={[{ key: 'key', label: 'key', hint: KEY_HINT }]}
          onChange={(groupBy) => rules.fromForm(put(value, 'group_by', groupBy))}
        />
      </fieldset>
      <CodeEditor label="Conditions and group by (JSON)" value={rules.text} onChange={rules.fromJson} schema={schema} problem={rules.broken} rows={8} />
    </div>
  );
}

export function UsageLimitForm({ existing, onSaved, onCancel }: FormProps<UsageLimitsPolicy>) {
  const form = useSave(['CreateUsageLimitsPolicy', 'UpdateUsageLimitsPolicy'], '/v2/policies/usage-limits', existing?.id, onSaved);
  const [name, setName] = useState(existing?.name ?? '');
  const [type, setType] = useState<string>(existing?.type ?? 'cost');
  const [limit, setLimit] = useState(existing ? String(existing.credit_limit) : '');
  const [alert, setAlert] = useState(existing?.alert_threshold == null ? '' : String(existing.alert_threshold));
  const [reset, setReset] = useState<string>(existing?.periodic_reset ?? (existing?.periodic_reset_days ? 'days' : ''));
  const [days, setDays] = useState(existing?.periodic_reset_days ? String(existing.periodic_reset_days) : '30');
  const [workspace, setWorkspace] = useState('');
  const rules = useJsonMirror<Rules>(rulesOf(existing), isObject);
  // periodic_reset and periodic_reset_days exclude each other: the one not chosen is cleared when it was set.
  const resetFields = () =>
    reset === 'days'
      ? { periodic_reset: null, periodic_reset_days: Number(days) }
      : { periodic_reset: reset === '' ? null : reset, ...(existing?.periodic_reset_days != null ? { periodic_reset_days: null } : {}) };
  const body = () => ({
    name,
    ...(existing ? {} : { type, ...(workspace ? { workspace_id: workspace } : {}) }),
    credit_limit: Number(limit),
    alert_threshold: alert === '' ? null : Number(alert),
    ...resetFields(),
    ...sharedFields(rules),
  });
  return (
    <EditorPanel title={existing ? `Edit usage limit ${existing.name}` : 'New usage limit'} submitLabel={existing ? 'Save usage limit' : 'Create usage limit'} busy={form.busy} error={form.error} onSubmit={() => void form.save(body)} onCancel={onCancel}>
      <div className="filters">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        <Field label="Counts" hint={existing ? 'Set at creation' : undefined}>
          <select value={type} onChange={(e) => setType(e.target.value)} disabled={Boolean(existing)}>
            <option value="cost">Cost (USD)</option>
            <option value="tokens">Tokens</option>
            <option value="requests">Requests</option>
          </select>
        </Field>
        <Field label="Limit">
          <input type="number" min={0} step="any" value={limit} onChange={(e) => setLimit(e.target.value)} />
        </Field>
        <Field label="Alert at" hint="Optional">
          <input type="number" min={0} step="any" value={alert} onChange={(e) => setAlert(e.target.value)} />
        </Field>
        <Field label="Resets">
          <select value={reset} onChange={(e) => setReset(e.target.value)}>
            <option value="">Never</option>
            <option value="monthly">Monthly</option>
            <option value="weekly">Weekly</option>
            <option value="days">Every N days</option>
          </select>
        </Field>
        {reset === 'days' && (
          <Field label="Reset every (days)" hint="1 to 365, counted from the policy's creation day">
            <input type="number" min={1} max={365} step={1} value={days} onChange={(e) => setDays(e.target.value)} />
          </Field>
        )}
        {!existing && <WorkspaceChoice value={workspace} onChange={setWorkspace} />}
      </div>
      <GroupAndConditions rules={rules} schema="UpdateUsageLimitsPolicy" />
    </EditorPanel>
  );
}

export function RateLimitForm({ existing, onSaved, onCancel }: FormProps<RateLimitsPolicy>) {
  const form = useSave(['CreateRateLimitsPolicy', 'UpdateRateLimitsPolicy'], '/v2/policies/rate-limits', existing?.id, onSaved);
  const [name, setName] = useState(existing?.name ?? '');
  const [type, setType] = useState<string>(existing?.type ?? 'requests');
  const [target, setTarget] = useState<string>(existing?.target ?? 'llm');
  const [unit, setUnit] = useState<string>(existing?.unit ?? 'minute');
  const [value, setValue] = useState(existing ? String(existing.value) : '');
  const [workspace, setWorkspace] = useState('');
  const rules = useJsonMirror<Rules>(rulesOf(existing), isObject);
  const body = () => ({ name, ...(existing ? {} : { type, target, ...(workspace ? { workspace_id: workspace } : {}) }), unit, value: Number(value), ...sharedFields(rules) });
  return (
    <EditorPanel title={existing ? `Edit rate limit ${existing.name}` : 'New rate limit'} submitLabel={existing ? 'Save rate limit' : 'Create rate limit'} busy={form.busy} error={form.error} onSubmit={() => void form.save(body)} onCancel={onCancel}>
      <div className="filters">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        <Field label="Counts" hint={existing ? 'Set at creation' : undefined}>
          <select value={type} onChange={(e) => setType(e.target.value)} disabled={Boolean(existing)}>
            <option value="requests">Requests</option>
            <option value="tokens">Tokens</option>
          </select>
        </Field>
        <Field label="Applies to" hint={existing ? 'Set at creation' : undefined}>
          <select value={target} onChange={(e) => setTarget(e.target.value)} disabled={Boolean(existing)}>
            <option value="llm">Model calls</option>
            <option value="mcp_tools">MCP tool calls</option>
            <option value="agents">A2A agent calls</option>
          </select>
        </Field>
        <Field label="Limit">
          <input type="number" min={1} step={1} value={value} onChange={(e) => setValue(e.target.value)} />
        </Field>
        <Field label="Per">
          <select value={unit} onChange={(e) => setUnit(e.target.value)}>
            <option value="minute">Minute</option>
            <option value="hour">Hour</option>
            <option value="day">Day</option>
          </select>
        </Field>
        {!existing && <WorkspaceChoice value={workspace} onChange={setWorkspace} />}
      </div>
      <GroupAndConditions rules={rules} schema="UpdateRateLimitsPolicy" />
    </EditorPanel>
  );
}
