/** Create and edit forms for usage-limit and rate-limit policies, checked against the spec before sending. */
import { useState } from 'react';
import { bodyProblem, parseJson } from '../api/spec-validation';
import { can } from '../api/identity';
import type { ValidatedSchema } from '../api/validated-schemas';
import type { Page, RateLimitsPolicy, UsageLimitsPolicy, Workspace } from '../api/types';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { useAsync } from '../use-async';

interface FormProps<T> {
  existing?: T;
  onSaved: () => void;
  onCancel: () => void;
}

const keysText = (groupBy: unknown) => (groupBy as Array<{ key: string }> | undefined)?.map((g) => g.key).join(', ') ?? '';

/** group_by from "api_key, metadata.team"; conditions from their JSON text. */
function sharedFields(groupBy: string, conditions: string): Record<string, unknown> {
  const parsed = parseJson(conditions || '[]');
  if ('problem' in parsed) throw new FormProblem(`conditions: ${parsed.problem}`);
  const keys = groupBy.split(',').map((s) => s.trim()).filter(Boolean);
  return { group_by: keys.map((key) => ({ key })), conditions: parsed.value };
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

function GroupAndConditions({ groupBy, setGroupBy, conditions, setConditions }: { groupBy: string; setGroupBy: (v: string) => void; conditions: string; setConditions: (v: string) => void }) {
  return (
    <>
      <Field label="Group by" hint="Comma-separated: api_key, workspace_id, metadata.<name>; empty: one shared counter">
        <input value={groupBy} onChange={(e) => setGroupBy(e.target.value)} />
      </Field>
      <Field label="Conditions (JSON)" hint='Optional: [{"key": "metadata.env", "value": "prod"}]'>
        <textarea className="code-editor small" rows={3} spellCheck={false} value={conditions} onChange={(e) => setConditions(e.target.value)} />
      </Field>
    </>
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
  const [groupBy, setGroupBy] = useState(keysText(existing?.group_by));
  const [conditions, setConditions] = useState(existing ? JSON.stringify(existing.conditions) : '');
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
    ...sharedFields(groupBy, conditions),
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
      <GroupAndConditions groupBy={groupBy} setGroupBy={setGroupBy} conditions={conditions} setConditions={setConditions} />
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
  const [groupBy, setGroupBy] = useState(keysText(existing?.group_by));
  const [conditions, setConditions] = useState(existing ? JSON.stringify(existing.conditions) : '');
  const body = () => ({ name, ...(existing ? {} : { type, target, ...(workspace ? { workspace_id: workspace } : {}) }), unit, value: Number(value), ...sharedFields(groupBy, conditions) });
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
      <GroupAndConditions groupBy={groupBy} setGroupBy={setGroupBy} conditions={conditions} setConditions={setConditions} />
    </EditorPanel>
  );
}
