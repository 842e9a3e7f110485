/**
 * A guardrail's checks as a list: each a built-in check id with its common parameters as fields.
 * The ids and parameters are those docs/guardrails.md lists (gw validates each check's parameters
 * against its own schema on save); parameters without a field are edited in the JSON beside, and
 * the form keeps every key it does not show.
 */
import { Field } from '../components/field';
import { TextListInput } from '../components/list-input';
import { put } from './config-form';

type Kind = 'text' | 'number' | 'boolean' | 'list' | { choices: string[] };
export type Check = { id?: string; parameters?: Record<string, unknown>; [key: string]: unknown };

const COUNT = (what: string): Record<string, Kind> => ({ [`min${what}`]: 'number', [`max${what}`]: 'number', not: 'boolean' });

/** Built-in checks and the parameters the form shows as fields. */
export const CHECKS: Record<string, Record<string, Kind>> = {
  'default.regexMatch': { rule: 'text', flags: 'text', not: 'boolean' },
  'default.contains': { words: 'list', operator: { choices: ['any', 'all', 'none'] } },
  'default.wordCount': COUNT('Words'),
  'default.sentenceCount': COUNT('Sentences'),
  'default.characterCount': COUNT('Characters'),
  'default.jsonSchema': { not: 'boolean' },
  'default.jsonKeys': { keys: 'list', operator: { choices: ['any', 'all', 'none'] } },
  'default.validUrls': { httpOnly: 'boolean' },
  'default.containsCode': { format: 'text', not: 'boolean' },
  'default.alluppercase': { not: 'boolean' },
  'default.alllowercase': { not: 'boolean' },
  'default.endsWith': { suffix: 'text', not: 'boolean' },
  'default.modelWhitelist': { models: 'list' },
  'default.allowedRequestTypes': { allowedTypes: 'list', blockedTypes: 'list' },
  'default.requiredMetadataKeys': { metadataKeys: 'list', operator: { choices: ['all', 'any', 'none'] } },
  'default.notNull': {},
  'default.pii': { categories: 'list', redact: 'boolean' },
  'default.jwt': { jwksUri: 'text', headerKey: 'text', issuer: 'text', audience: 'text', algorithms: 'list' },
  'default.webhook': { webhookURL: 'text', timeout: 'number', executeOnProxy: 'boolean' },
  'default.log': { logURL: 'text', timeout: 'number' },
};

function ParameterField({ label, kind, value, onChange }: { label: string; kind: Kind; value: unknown; onChange: (value: unknown) => void }) {
  if (kind === 'boolean') {
    return (
      <label className="check">
        <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked || undefined)} />
        {label}
      </label>
    );
  }
  if (kind === 'list') {
    return (
      <Field label={label} hint="Comma-separated">
        <TextListInput value={Array.isArray(value) ? value.map(String) : undefined} onChange={onChange} />
      </Field>
    );
  }
  if (typeof kind === 'object') {
    return (
      <Field label={label}>
        <select value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value || undefined)}>
          <option value="">Default</option>
          {kind.choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </Field>
    );
  }
  const shown = value === undefined ? '' : String(value);
  return (
    <Field label={label}>
      <input type={kind === 'number' ? 'number' : 'text'} value={shown} onChange={(e) => onChange(e.target.value === '' ? undefined : kind === 'number' ? Number(e.target.value) : e.target.value)} />
    </Field>
  );
}

export function ChecksForm({ checks, onChange }: { checks: Check[]; onChange: (next: Check[]) => void }) {
  const setCheck = (index: number, next: Check) => onChange(checks.map((c, i) => (i === index ? next : c)));
  return (
    <fieldset>
      <legend>Checks</legend>
      <ol className="check-list">
        {checks.map((check, index) => {
          const id = check.id ?? '';
          const fields = CHECKS[id] ?? {};
          const parameters = check.parameters ?? {};
          const others = Object.keys(parameters).filter((k) => !(k in fields));
          const setParameter = (key: string, value: unknown) => {
            const next = put(parameters, key, value);
            setCheck(index, put(check, 'parameters', Object.keys(next).length ? next : undefined));
          };
          return (
            <li key={index}>
              <fieldset>
                <legend>Check {index + 1}</legend>
                <Field label={`Check ${index + 1} id`}>
                  <select value={id} onChange={(e) => setCheck(index, put(check, 'id', e.target.value))}>
                    {!(id in CHECKS) && <option value={id}>{id || 'Choose a check'}</option>}
                    {Object.keys(CHECKS).map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </select>
                </Field>
                <div className="filters">
                  {Object.entries(fields).map(([key, kind]) => (
                    <ParameterField key={key} label={`Check ${index + 1} ${key}`} kind={kind} value={parameters[key]} onChange={(value) => setParameter(key, value)} />
                  ))}
                </div>
                {others.length > 0 && <p className="hint">Also set in the JSON: {others.join(', ')}</p>}
                <button type="button" className="secondary" onClick={() => onChange(checks.filter((_, i) => i !== index))} disabled={checks.length <= 1}>
                  Remove check {index + 1}
                </button>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <button type="button" className="secondary" onClick={() => onChange([...checks, { id: 'default.contains', parameters: { words: [] } }])}>
        Add a check
      </button>
    </fieldset>
  );
}
