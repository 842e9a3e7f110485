/** Create and edit forms for saved providers and integrations: secrets are typed in, never shown back. */
import { useState } from 'react';
import { bodyProblem, parseJson } from '../api/spec-validation';
import type { Integration, Provider } from '../api/types';
import { EditorPanel } from '../components/editor-panel';
import { Field } from '../components/field';
import { SecretInput } from '../components/secret-input';
import { useIdentity } from '../identity-context';
import { FormProblem, useAction } from '../use-action';
import { CredentialFields, useCredentialFields } from './credential-fields';

const KNOWN_PROVIDERS = ['openai', 'anthropic', 'google', 'vertex-ai', 'azure-openai', 'bedrock', 'mistral-ai', 'groq', 'cohere', 'deepseek', 'ollama'];

/** Leaves out fields the person left empty, so "not given" is never sent as "". */
function filled(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '' && v !== undefined));
}

function ProviderNames() {
  return (
    <datalist id="known-providers">
      {KNOWN_PROVIDERS.map((name) => (
        <option key={name} value={name} />
      ))}
    </datalist>
  );
}

const limitText = (value: unknown) => (value == null ? '' : JSON.stringify(value));

/** An attached limit from its JSON box: left out when unchanged, null when emptied. */
function limitValue(field: string, text: string, stored: unknown): unknown {
  if (text === limitText(stored)) return undefined;
  if (!text.trim()) return null;
  const parsed = parseJson(text);
  if ('problem' in parsed) throw new FormProblem(`${field}: ${parsed.problem}`);
  return parsed.value;
}

interface FormProps<T> {
  existing?: T;
  onSaved: () => void;
  onCancel: () => void;
}

export function ProviderForm({ existing, integrations, onSaved, onCancel }: FormProps<Provider> & { integrations: Integration[] | undefined }) {
  const { api } = useIdentity();
  const action = useAction();
  const [name, setName] = useState(existing?.name ?? '');
  const [slug, setSlug] = useState(existing?.slug ?? '');
  const [useIntegration, setUseIntegration] = useState(Boolean(existing?.integration_id));
  const [integration, setIntegration] = useState(existing?.integration_id ?? '');
  const [aiProvider, setAiProvider] = useState(existing?.ai_provider_id ?? 'openai');
  const [key, setKey] = useState('');
  const [note, setNote] = useState(existing?.note ?? '');
  const credentials = useCredentialFields(existing);
  const [usageLimits, setUsageLimits] = useState(limitText(existing?.usage_limits));
  const [rateLimits, setRateLimits] = useState(limitText(existing?.rate_limits));

  const save = () =>
    action.run(async () => {
      const source = useIntegration ? { integration_id: integration } : { ai_provider_id: aiProvider, key: credentials.authType === 'apiKey' ? key : undefined, ...credentials.bodyPart(aiProvider) };
      const limits = { usage_limits: limitValue('usage_limits', usageLimits, existing?.usage_limits), rate_limits: limitValue('rate_limits', rateLimits, existing?.rate_limits) };
      const body = filled({ name, slug: existing && slug === existing.slug ? undefined : slug, note: note || (existing?.note ? null : undefined), ...source, ...limits });
      const problem = bodyProblem(existing ? 'UpdateProvider' : 'CreateProvider', body);
      if (problem) throw new FormProblem(problem);
      if (existing) await api.send('PUT', `/v1/providers/${existing.id}`, body);
      else await api.send('POST', '/v1/providers', body);
      onSaved();
    });

  return (
    <EditorPanel title={existing ? `Edit provider ${existing.name}` : 'New provider'} submitLabel={existing ? 'Save provider' : 'Create provider'} busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        <Field label="Slug" hint="Optional: used as @slug in gateway calls">
          <input value={slug} onChange={(e) => setSlug(e.target.value)} />
        </Field>
        {integrations !== undefined && !existing && (
          <Field label="Credentials">
            <select value={useIntegration ? 'integration' : 'own'} onChange={(e) => setUseIntegration(e.target.value === 'integration')}>
              <option value="own">Its own key</option>
              <option value="integration">An integration's</option>
            </select>
          </Field>
        )}
        {useIntegration ? (
          <Field label="Integration">
            <select value={integration} onChange={(e) => setIntegration(e.target.value)} disabled={Boolean(existing)}>
              <option value="">Choose an integration</option>
              {(integrations ?? []).map((i) => (
                <option key={i.id} value={i.id}>
                  {i.name} ({i.ai_provider_id})
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <>
            <Field label="AI provider" hint="The adapter: openai, anthropic, bedrock, …">
              <input value={aiProvider} onChange={(e) => setAiProvider(e.target.value)} list="known-providers" />
            </Field>
            {credentials.authType === 'apiKey' && <SecretInput label="Provider key" value={key} onChange={setKey} masked={existing?.masked_key} />}
          </>
        )}
        <Field label="Note">
          <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={1024} />
        </Field>
      </div>
      {!useIntegration && (
        <CredentialFields state={credentials} aiProvider={aiProvider} storedHint={existing ? 'Stored settings are not shown back: filling any of these replaces them (secrets left empty are kept).' : undefined} />
      )}
      <fieldset>
        <legend>Limits on this provider</legend>
        <div className="filters">
          <Field label="Usage limit (JSON)" hint='Optional: {"type": "cost", "credit_limit": 50, "periodic_reset": "monthly"}; empty removes it'>
            <textarea className="code-editor small" rows={2} spellCheck={false} value={usageLimits} onChange={(e) => setUsageLimits(e.target.value)} />
          </Field>
          <Field label="Rate limits (JSON)" hint='Optional: [{"type": "requests", "unit": "minute", "value": 60}]; empty removes them'>
            <textarea className="code-editor small" rows={2} spellCheck={false} value={rateLimits} onChange={(e) => setRateLimits(e.target.value)} />
          </Field>
        </div>
      </fieldset>
      <ProviderNames />
    </EditorPanel>
  );
}

export function IntegrationForm({ existing, onSaved, onCancel }: FormProps<Integration>) {
  const { api } = useIdentity();
  const action = useAction();
  const access = existing?.workspace_access as { all_workspaces: boolean; workspace_ids: string[] } | undefined;
  const [name, setName] = useState(existing?.name ?? '');
  const [slug, setSlug] = useState(existing?.slug ?? '');
  const [aiProvider, setAiProvider] = useState(existing?.ai_provider_id ?? 'openai');
  const [key, setKey] = useState('');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [allWorkspaces, setAllWorkspaces] = useState(access?.all_workspaces ?? true);
  const credentials = useCredentialFields(existing);
  const [workspaceIds, setWorkspaceIds] = useState((access?.workspace_ids ?? []).join(', '));

  const save = () =>
    action.run(async () => {
      const ids = workspaceIds.split(',').map((s) => s.trim()).filter(Boolean);
      const body = filled({
        name,
        slug: existing && slug === existing.slug ? undefined : slug,
        ai_provider_id: existing && aiProvider === existing.ai_provider_id ? undefined : aiProvider,
        key: credentials.authType === 'apiKey' ? key : undefined,
        ...credentials.bodyPart(aiProvider),
        description: description || (existing?.description ? null : undefined),
        workspace_access: { all_workspaces: allWorkspaces, workspace_ids: allWorkspaces ? [] : ids },
      });
      const problem = bodyProblem(existing ? 'UpdateIntegration' : 'CreateIntegration', body);
      if (problem) throw new FormProblem(problem);
      if (existing) await api.send('PUT', `/v1/integrations/${existing.id}`, body);
      else await api.send('POST', '/v1/integrations', body);
      onSaved();
    });

  return (
    <EditorPanel title={existing ? `Edit integration ${existing.name}` : 'New integration'} submitLabel={existing ? 'Save integration' : 'Create integration'} busy={action.busy} error={action.error} onSubmit={() => void save()} onCancel={onCancel}>
      <div className="filters">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        <Field label="Slug" hint="Optional">
          <input value={slug} onChange={(e) => setSlug(e.target.value)} />
        </Field>
        <Field label="AI provider">
          <input value={aiProvider} onChange={(e) => setAiProvider(e.target.value)} list="known-providers" />
        </Field>
        {credentials.authType === 'apiKey' && <SecretInput label="Provider key" value={key} onChange={setKey} masked={existing?.masked_key} />}
        <Field label="Description">
          <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1024} />
        </Field>
      </div>
      <CredentialFields state={credentials} aiProvider={aiProvider} stored={existing?.configurations} />
      <fieldset>
        <legend>Workspaces that may use it</legend>
        <label className="check">
          <input type="checkbox" checked={allWorkspaces} onChange={(e) => setAllWorkspaces(e.target.checked)} />
          All workspaces
        </label>
        {!allWorkspaces && (
          <Field label="Workspace ids or slugs" hint="Comma-separated">
            <input value={workspaceIds} onChange={(e) => setWorkspaceIds(e.target.value)} />
          </Field>
        )}
      </fieldset>
      <ProviderNames />
    </EditorPanel>
  );
}
