/**
 * The credential part of the provider and integration forms: the auth type, the cloud and auth
 * fields each provider family and auth type takes, an advanced JSON box for the rest of
 * `configurations`, and secret mappings. Secret fields are password boxes that start empty.
 */
import { useState } from 'react';
import type { components } from '../../../generated/types';
import { can } from '../api/identity';
import { parseJson } from '../api/spec-validation';
import type { Page } from '../api/types';
import { Field } from '../components/field';
import { SecretInput } from '../components/secret-input';
import { useIdentity } from '../identity-context';
import { FormProblem } from '../use-action';
import { useAsync } from '../use-async';

type AuthType = components['schemas']['AuthType'];
type SecretReference = components['schemas']['SecretReference'];

const AUTH_TYPES: Record<AuthType, string> = {
  apiKey: 'API key (or AWS keys for Bedrock)',
  oauthClientCredentials: 'OAuth client credentials',
  entraFederated: 'Entra federated (Azure workload token)',
  workload: 'Azure workload identity',
  wif: 'Google workload identity federation',
};

interface ConfigField {
  name: string;
  label: string;
  secret?: boolean;
  hint?: string;
}

/** Every provider may point at its own upstream. */
const COMMON: ConfigField[] = [{ name: 'custom_host', label: 'Custom host', hint: 'Optional: a self-hosted or proxied upstream URL' }];

const AZURE_WORKLOAD: ConfigField[] = [
  { name: 'azure_workload_client_id', label: 'Workload client id' },
  { name: 'azure_workload_tenant_id', label: 'Workload tenant id' },
];

/** The fields each provider family takes besides a key (CloudFields in the spec). */
const FIELDS_BY_PROVIDER: Record<string, ConfigField[]> = {
  'azure-openai': [
    { name: 'resource_name', label: 'Azure resource name' },
    { name: 'deployment_id', label: 'Deployment' },
    { name: 'api_version', label: 'API version', hint: 'For example 2024-10-21' },
  ],
  'vertex-ai': [
    { name: 'vertex_project_id', label: 'Vertex project id' },
    { name: 'vertex_region', label: 'Vertex region', hint: 'For example us-central1, or global' },
  ],
  bedrock: [
    { name: 'aws_region', label: 'AWS region' },
    { name: 'aws_access_key_id', label: 'AWS access key id' },
    { name: 'aws_secret_access_key', label: 'AWS secret access key', secret: true },
    { name: 'aws_session_token', label: 'AWS session token', secret: true },
    { name: 'aws_role_arn', label: 'Role to assume (ARN)', hint: 'Optional: arn:aws:iam::123456789012:role/name' },
    { name: 'aws_external_id', label: 'External id', hint: 'Optional, with the role' },
    { name: 'aws_sts_endpoint', label: 'STS endpoint', hint: 'Optional, with the role' },
  ],
};

/** The fields each auth type other than an API key needs. */
const FIELDS_BY_AUTH: Partial<Record<AuthType, ConfigField[]>> = {
  oauthClientCredentials: [
    { name: 'oauth_token_endpoint', label: 'Token endpoint' },
    { name: 'oauth_client_id', label: 'Client id' },
    { name: 'oauth_client_secret', label: 'Client secret', secret: true },
    { name: 'oauth_scope', label: 'Scope', hint: 'Optional' },
  ],
  entraFederated: AZURE_WORKLOAD,
  workload: AZURE_WORKLOAD,
};

const ALL_FIELDS = [...COMMON, ...Object.values(FIELDS_BY_PROVIDER), ...Object.values(FIELDS_BY_AUTH)].flat();
const KNOWN_NAMES = new Set(ALL_FIELDS.map((f) => f.name));
const SECRET_NAMES = new Set(ALL_FIELDS.filter((f) => f.secret).map((f) => f.name));
const MAPPING_TARGETS = ['key', ...new Set(ALL_FIELDS.map((f) => `configurations.${f.name}`))];

interface Mapping {
  target_field: string;
  secret_reference_id: string;
  secret_key: string;
  value_format: string;
}

/** What the stored record says (integrations answer with their configurations, secrets masked; providers do not). */
export interface StoredCredentials {
  auth_type?: string;
  configurations?: Record<string, unknown>;
  secret_mappings?: Array<Record<string, unknown>>;
}

function visibleFields(aiProvider: string, authType: AuthType): ConfigField[] {
  return [...COMMON, ...(FIELDS_BY_PROVIDER[aiProvider] ?? []), ...(FIELDS_BY_AUTH[authType] ?? [])];
}

const mappingBody = (rows: Mapping[]) =>
  rows.map((m) => Object.fromEntries(Object.entries(m).filter(([field, v]) => v !== '' && !(field === 'value_format' && v === 'string'))));

/**
 * The state of the credential fields, and the body part they make: `auth_type`, `configurations`
 * and `secret_mappings`, each sent only when it differs from what is stored.
 */
export function useCredentialFields(existing: StoredCredentials | undefined) {
  const stored = existing?.configurations ?? {};
  const [authType, setAuthType] = useState<AuthType>((existing?.auth_type as AuthType | undefined) ?? 'apiKey');
  const [values, setValues] = useState<Record<string, string>>(() => storedValues(stored));
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const unknown = Object.fromEntries(Object.entries(stored).filter(([name]) => !KNOWN_NAMES.has(name)));
  const initialAdvanced = Object.keys(unknown).length ? JSON.stringify(unknown, null, 2) : '';
  const [advanced, setAdvanced] = useState(initialAdvanced);
  const initialMappings = (existing?.secret_mappings ?? []).map((m) => ({
    target_field: String(m.target_field ?? 'key'),
    secret_reference_id: String(m.secret_reference_id ?? ''),
    secret_key: String(m.secret_key ?? ''),
    value_format: String(m.value_format ?? 'string'),
  }));
  const [mappings, setMappings] = useState<Mapping[]>(initialMappings);

  const configurationsFor = (aiProvider: string, typed: Record<string, string>, typedSecrets: Record<string, string>, advancedText: string) => {
    const result: Record<string, unknown> = {};
    for (const field of visibleFields(aiProvider, authType)) {
      const value = field.secret ? typedSecrets[field.name] : typed[field.name];
      if (value) result[field.name] = value;
    }
    if (advancedText.trim()) {
      const parsed = parseJson(advancedText);
      if ('problem' in parsed) throw new FormProblem(`configurations (advanced): ${parsed.problem}`);
      if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) throw new FormProblem('configurations (advanced) must be a JSON object');
      Object.assign(result, parsed.value);
    }
    return result;
  };

  /** The body fields to send; throws a FormProblem when the advanced JSON is not an object. */
  const bodyPart = (aiProvider: string): Record<string, unknown> => {
    const part: Record<string, unknown> = {};
    if (authType !== (existing?.auth_type ?? 'apiKey')) part.auth_type = authType;
    const configurations = configurationsFor(aiProvider, values, secrets, advanced);
    const before = existing ? configurationsFor(aiProvider, storedValues(stored), {}, initialAdvanced) : {};
    if (JSON.stringify(configurations) !== JSON.stringify(before) || part.auth_type !== undefined) {
      if (Object.keys(configurations).length || existing) part.configurations = configurations;
    }
    const rows = mappings.filter((m) => m.secret_reference_id || m.secret_key);
    if (JSON.stringify(rows) !== JSON.stringify(initialMappings)) part.secret_mappings = mappingBody(rows);
    return part;
  };

  return { authType, setAuthType, values, setValues, secrets, setSecrets, advanced, setAdvanced, mappings, setMappings, bodyPart };
}

/** The stored plain fields the structured boxes show (secrets are never shown back). */
function storedValues(stored: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(stored).filter(([name, v]) => KNOWN_NAMES.has(name) && !SECRET_NAMES.has(name) && typeof v === 'string') as Array<[string, string]>);
}

type CredentialState = ReturnType<typeof useCredentialFields>;

/** The auth type select, the fields for the provider family and auth type, and the advanced JSON. */
export function CredentialFields({ state, aiProvider, stored, storedHint }: { state: CredentialState; aiProvider: string; stored?: Record<string, unknown>; storedHint?: string }) {
  const fields = visibleFields(aiProvider, state.authType);
  return (
    <fieldset>
      <legend>Authentication and cloud settings</legend>
      {storedHint && <p className="hint">{storedHint}</p>}
      <div className="filters">
        <Field label="Auth type">
          <select value={state.authType} onChange={(e) => state.setAuthType(e.target.value as AuthType)}>
            {Object.entries(AUTH_TYPES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {fields.map((field) =>
          field.secret ? (
            <SecretInput
              key={field.name}
              label={field.label}
              value={state.secrets[field.name] ?? ''}
              onChange={(v) => state.setSecrets({ ...state.secrets, [field.name]: v })}
              masked={typeof stored?.[field.name] === 'string' ? (stored[field.name] as string) : undefined}
            />
          ) : (
            <Field key={field.name} label={field.label} hint={field.hint}>
              <input value={state.values[field.name] ?? ''} onChange={(e) => state.setValues({ ...state.values, [field.name]: e.target.value })} />
            </Field>
          ),
        )}
      </div>
      <Field label="More configurations (JSON)" hint='Optional, merged over the fields above; checked against the spec before saving'>
        <textarea className="code-editor small" rows={3} spellCheck={false} value={state.advanced} onChange={(e) => state.setAdvanced(e.target.value)} />
      </Field>
      <SecretMappings state={state} />
    </fieldset>
  );
}

/** Fields filled from a secret reference at request time: a target field, the reference, and its options. */
function SecretMappings({ state }: { state: CredentialState }) {
  const identity = useIdentity();
  const mayList = can(identity, 'secret_references.list');
  const references = useAsync(
    () => (mayList ? identity.api.get<Page<SecretReference>>('/v1/secret-references', { limit: 100 }).then((p) => p.data) : Promise.resolve(undefined)),
    [identity.api, mayList],
  );
  const { mappings, setMappings } = state;
  const update = (index: number, change: Partial<Mapping>) => setMappings(mappings.map((m, i) => (i === index ? { ...m, ...change } : m)));
  return (
    <div>
      <h3>Secret mappings</h3>
      {mappings.map((m, index) => (
        <div className="filters" key={index} role="group" aria-label={`Secret mapping ${index + 1}`}>
          <Field label="Fills">
            <select value={m.target_field} onChange={(e) => update(index, { target_field: e.target.value })}>
              {MAPPING_TARGETS.map((target) => (
                <option key={target} value={target}>
                  {target}
                </option>
              ))}
            </select>
          </Field>
          {references.data ? (
            <Field label="Secret reference">
              <select value={m.secret_reference_id} onChange={(e) => update(index, { secret_reference_id: e.target.value })}>
                <option value="">Choose a secret reference</option>
                {references.data.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name} ({r.slug})
                  </option>
                ))}
              </select>
            </Field>
          ) : (
            <Field label="Secret reference" hint="Its id or slug">
              <input value={m.secret_reference_id} onChange={(e) => update(index, { secret_reference_id: e.target.value })} />
            </Field>
          )}
          <Field label="Secret key" hint="Optional: a field of a structured secret">
            <input value={m.secret_key} onChange={(e) => update(index, { secret_key: e.target.value })} />
          </Field>
          <Field label="Value format">
            <select value={m.value_format} onChange={(e) => update(index, { value_format: e.target.value })}>
              <option value="string">string</option>
              <option value="json">json</option>
            </select>
          </Field>
          <button type="button" className="secondary" onClick={() => setMappings(mappings.filter((_, i) => i !== index))} aria-label={`Remove secret mapping ${index + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => setMappings([...mappings, { target_field: 'key', secret_reference_id: '', secret_key: '', value_format: 'string' }])}>
        Add a secret mapping
      </button>
    </div>
  );
}
