/**
 * A gw config (the spec's Config schema) as a form. The form edits a copy of the JSON document and
 * touches only the keys it shows, so every other field (api_key, override_params beyond model,
 * forward_headers, cloud fields...) survives a round trip untouched.
 */
import { useId } from 'react';
import { Field } from '../components/field';
import { NumberListInput, TextListInput } from '../components/list-input';

export type ConfigNode = Record<string, unknown>;
type Mode = '' | 'single' | 'fallback' | 'loadbalance' | 'conditional';
type Condition = { query?: unknown; then?: string; [key: string]: unknown };

/** A copy of `object` with `key` set, or removed when `value` is undefined. */
export function put<T extends Record<string, unknown>>(object: T, key: string, value: unknown): T {
  const next: Record<string, unknown> = { ...object };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return next as T;
}

const obj = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const str = (value: unknown) => (typeof value === 'string' ? value : '');
const num = (value: unknown) => (typeof value === 'number' ? String(value) : '');
const toNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));
/** A sub-object with `key` set; undefined (removed) when nothing is left in it. */
const putIn = (parent: unknown, key: string, value: unknown) => {
  const next = put(obj(parent), key, value);
  return Object.keys(next).length ? next : undefined;
};

/** A field's label: under a target, prefixed by it ("Target 2: provider"); at the top, capitalised. */
const labelFor = (prefix: string, text: string) => (prefix ? `${prefix}${text}` : text[0]!.toUpperCase() + text.slice(1));

function targetsOf(node: ConfigNode): ConfigNode[] {
  return Array.isArray(node.targets) ? (node.targets as ConfigNode[]) : [];
}

/** The whole config: routing at the top, then what every target inherits. */
export function ConfigForm({ config, onChange, providers }: { config: ConfigNode; onChange: (next: ConfigNode) => void; providers: string[] }) {
  const listId = useId();
  return (
    <div className="config-form">
      <datalist id={listId}>
        {providers.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      <NodeFields node={config} onChange={onChange} depth={0} path="" providerList={listId} />
      <SharedSettings node={config} onChange={onChange} />
    </div>
  );
}

/** One node of the tree: its strategy and targets, or the provider it calls. */
function NodeFields({ node, onChange, depth, path, providerList, parentMode }: { node: ConfigNode; onChange: (next: ConfigNode) => void; depth: number; path: string; providerList: string; parentMode?: Mode }) {
  const strategy = obj(node.strategy);
  const mode = str(strategy.mode) as Mode;
  const targets = targetsOf(node);
  const setStrategy = (key: string, value: unknown) => onChange(put(node, 'strategy', put(strategy, key, value)));
  const setMode = (next: Mode) => {
    if (!next) return onChange(put(put(node, 'strategy', undefined), 'targets', undefined));
    const withMode = put(node, 'strategy', put(strategy, 'mode', next));
    onChange(targets.length ? withMode : put(withMode, 'targets', [{}, {}]));
  };
  const setTarget = (index: number, next: ConfigNode) => onChange(put(node, 'targets', targets.map((t, i) => (i === index ? next : t))));
  const removeTarget = (index: number) => onChange(put(node, 'targets', targets.filter((_, i) => i !== index)));
  const names = targets.map((t) => str(t.name)).filter(Boolean);
  const prefix = path ? `Target ${path}: ` : '';
  return (
    <>
      {parentMode === 'loadbalance' && (
        <Field label={labelFor(prefix, 'weight')} hint="Share of traffic, relative to the other targets">
          <input type="number" min={0} step="any" value={num(node.weight)} onChange={(e) => onChange(put(node, 'weight', toNumber(e.target.value)))} />
        </Field>
      )}
      {(parentMode === 'conditional' || node.name !== undefined) && (
        <Field label={labelFor(prefix, 'name')} hint="Named by conditions and the default">
          <input value={str(node.name)} maxLength={255} onChange={(e) => onChange(put(node, 'name', e.target.value || undefined))} />
        </Field>
      )}
      {depth < 2 && (
        <Field label={labelFor(prefix, 'strategy')}>
          <select value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
            <option value="">{depth === 0 ? 'One provider' : 'Call its provider'}</option>
            <option value="single">Single (first target)</option>
            <option value="fallback">Fallback (next target on failure)</option>
            <option value="loadbalance">Load balance (by weight)</option>
            <option value="conditional">Conditional (by metadata or params)</option>
          </select>
        </Field>
      )}
      {!mode && <ProviderFields node={node} onChange={onChange} prefix={prefix} providerList={providerList} />}
      {mode === 'fallback' && (
        <Field label={labelFor(prefix, 'fall back on statuses')} hint="Comma-separated, e.g. 429, 500, 503; empty: any failure">
          <NumberListInput value={strategy.on_status_codes as number[] | undefined} onChange={(v) => setStrategy('on_status_codes', v)} />
        </Field>
      )}
      {mode === 'conditional' && <Conditions strategy={strategy} names={names} prefix={prefix} onChange={(next) => onChange(put(node, 'strategy', next))} />}
      {mode && (
        <ol className="config-targets" aria-label={`${prefix || 'Config '}targets`}>
          {targets.map((target, index) => {
            const childPath = path ? `${path}.${index + 1}` : String(index + 1);
            return (
              <li key={index}>
                <fieldset>
                  <legend>Target {childPath}</legend>
                  <NodeFields node={target} onChange={(next) => setTarget(index, next)} depth={depth + 1} path={childPath} providerList={providerList} parentMode={mode} />
                  <button type="button" className="secondary" onClick={() => removeTarget(index)} disabled={targets.length <= 1}>
                    Remove target {childPath}
                  </button>
                </fieldset>
              </li>
            );
          })}
          <li>
            <button type="button" className="secondary" onClick={() => onChange(put(node, 'targets', [...targets, {}]))}>
              Add a target{path ? ` under ${path}` : ''}
            </button>
          </li>
        </ol>
      )}
    </>
  );
}

/** Provider by saved `@slug` (or name), legacy virtual key, and the model it is called with. */
function ProviderFields({ node, onChange, prefix, providerList }: { node: ConfigNode; onChange: (next: ConfigNode) => void; prefix: string; providerList: string }) {
  const params = obj(node.override_params);
  return (
    <div className="filters">
      <Field label={labelFor(prefix, 'provider')} hint="A saved provider as @slug, or a provider name">
        <input list={providerList} value={str(node.provider)} onChange={(e) => onChange(put(node, 'provider', e.target.value || undefined))} />
      </Field>
      <Field label={labelFor(prefix, 'virtual key')} hint="Legacy: a saved provider's slug">
        <input value={str(node.virtual_key)} onChange={(e) => onChange(put(node, 'virtual_key', e.target.value || undefined))} />
      </Field>
      <Field label={labelFor(prefix, 'model override')} hint="Optional: replaces the request's model">
        <input value={str(params.model)} onChange={(e) => onChange(put(node, 'override_params', putIn(params, 'model', e.target.value || undefined)))} />
      </Field>
    </div>
  );
}

/** Conditional routing: each row a query over metadata.* / params.* and the target it picks. */
function Conditions({ strategy, names, prefix, onChange }: { strategy: Record<string, unknown>; names: string[]; prefix: string; onChange: (next: Record<string, unknown>) => void }) {
  const rows = (Array.isArray(strategy.conditions) ? strategy.conditions : []) as Condition[];
  const setRows = (next: Condition[]) => onChange(put(strategy, 'conditions', next.length ? next : undefined));
  const choices = (value: string) => (value && !names.includes(value) ? [value, ...names] : names);
  return (
    <fieldset>
      <legend>{labelFor(prefix, 'conditions')}</legend>
      {rows.map((row, index) => (
        <div className="filters" key={index}>
          <QueryField label={`Condition ${index + 1} query`} value={row.query} onChange={(query) => setRows(rows.map((r, i) => (i === index ? put(r, 'query', query) : r)))} />
          <Field label={`Condition ${index + 1} then`}>
            <select value={str(row.then)} onChange={(e) => setRows(rows.map((r, i) => (i === index ? put(r, 'then', e.target.value || undefined) : r)))}>
              <option value="">Choose a target</option>
              {choices(str(row.then)).map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </Field>
          <button type="button" className="secondary" onClick={() => setRows(rows.filter((_, i) => i !== index))}>
            Remove condition {index + 1}
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => setRows([...rows, { query: {}, then: names[0] ?? '' }])}>
        Add a condition
      </button>
      <Field label={labelFor(prefix, 'default target')} hint="Used when no condition matches">
        <select value={str(strategy.default)} onChange={(e) => onChange(put(strategy, 'default', e.target.value || undefined))}>
          <option value="">None</option>
          {choices(str(strategy.default)).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </Field>
    </fieldset>
  );
}

/** A condition's query as one line of JSON; kept as typed until it parses. */
function QueryField({ label, value, onChange }: { label: string; value: unknown; onChange: (query: unknown) => void }) {
  return (
    <Field label={label} hint='e.g. {"metadata.tier": {"$eq": "pro"}}'>
      <input
        className="mono"
        defaultValue={JSON.stringify(value ?? {})}
        key={JSON.stringify(value ?? {})}
        onBlur={(e) => {
          try {
            onChange(JSON.parse(e.target.value || '{}'));
          } catch {
            e.target.setCustomValidity('Not valid JSON');
            e.target.reportValidity();
          }
        }}
        onChange={(e) => e.target.setCustomValidity('')}
      />
    </Field>
  );
}

/** What the whole tree inherits: retries, timeout, cache and guardrails. */
function SharedSettings({ node, onChange }: { node: ConfigNode; onChange: (next: ConfigNode) => void }) {
  const retry = obj(node.retry);
  const cache = obj(node.cache);
  const guardrailIds = (key: string) => (Array.isArray(node[key]) ? (node[key] as unknown[]) : []);
  // Inline guardrails (objects) are kept as they are; the form edits the saved ones' ids.
  const setGuardrails = (key: string, ids: string[] | undefined) => {
    const inline = guardrailIds(key).filter((g) => typeof g !== 'string');
    const all = [...(ids ?? []), ...inline];
    onChange(put(node, key, all.length ? all : undefined));
  };
  const inlineCount = (key: string) => guardrailIds(key).filter((g) => typeof g !== 'string').length;
  const hint = (key: string) => `Saved guardrail ids or slugs, comma-separated${inlineCount(key) ? `; ${inlineCount(key)} inline guardrail(s) kept in the JSON` : ''}`;
  return (
    <fieldset>
      <legend>Retries, timeout, cache and guardrails (inherited by every target)</legend>
      <div className="filters">
        <Field label="Retry attempts" hint="0 to 5 retries after the first try">
          <input type="number" min={0} max={5} step={1} value={num(retry.attempts)} onChange={(e) => onChange(put(node, 'retry', putIn(retry, 'attempts', toNumber(e.target.value))))} />
        </Field>
        <Field label="Retry on statuses" hint="Default 429, 500, 502, 503, 504">
          <NumberListInput value={retry.on_status_codes as number[] | undefined} onChange={(v) => onChange(put(node, 'retry', putIn(retry, 'on_status_codes', v)))} />
        </Field>
        <Field label="Request timeout (ms)" hint="Per upstream attempt">
          <input type="number" min={1} step={1} value={num(node.request_timeout)} onChange={(e) => onChange(put(node, 'request_timeout', toNumber(e.target.value)))} />
        </Field>
        <Field label="Cache">
          <select value={str(cache.mode)} onChange={(e) => onChange(put(node, 'cache', e.target.value ? put(cache, 'mode', e.target.value) : undefined))}>
            <option value="">Off</option>
            <option value="simple">Simple (same request)</option>
            <option value="semantic">Semantic (similar request)</option>
          </select>
        </Field>
        {cache.mode !== undefined && (
          <Field label="Cache max age (s)">
            <input type="number" min={1} step={1} value={num(cache.max_age)} onChange={(e) => onChange(put(node, 'cache', put(cache, 'max_age', toNumber(e.target.value))))} />
          </Field>
        )}
        <Field label="Input guardrails" hint={hint('input_guardrails')}>
          <TextListInput value={guardrailIds('input_guardrails').filter((g): g is string => typeof g === 'string')} onChange={(ids) => setGuardrails('input_guardrails', ids)} />
        </Field>
        <Field label="Output guardrails" hint={hint('output_guardrails')}>
          <TextListInput value={guardrailIds('output_guardrails').filter((g): g is string => typeof g === 'string')} onChange={(ids) => setGuardrails('output_guardrails', ids)} />
        </Field>
      </div>
    </fieldset>
  );
}
