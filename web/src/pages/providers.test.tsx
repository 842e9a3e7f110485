import { afterEach, describe, expect, test } from 'vitest';
import type { Integration, Provider } from '../api/types';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../test/render';
import { ProvidersPage } from './providers';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const stored: Provider = {
  id: 'p1', object: 'provider', name: 'Main', slug: 'main', note: null, organisation_id: 'o1', workspace_id: 'w1', integration_id: null,
  ai_provider_id: 'openai', auth_type: 'apiKey', masked_key: 'sk-f********0000', custom_host: null, status: 'active', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
};
const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null }) as never;
const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;

const oauthIntegration: Integration = {
  id: 'i1', object: 'integration', name: 'Entra', slug: 'entra', description: null, organisation_id: 'o1', ai_provider_id: 'azure-openai', auth_type: 'oauthClientCredentials', masked_key: null,
  configurations: { resource_name: 'res', deployment_id: 'gpt4o', api_version: '2024-10-21', oauth_token_endpoint: 'https://login.example/token', oauth_client_id: 'client-1', oauth_client_secret: 'cs-a********9999' },
  pricing_adjustments: {}, secret_mappings: [], workspace_access: { all_workspaces: true, workspace_ids: [] }, status: 'active', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
};
const reference = { id: 'sr-1', object: 'secret-reference', name: 'Vault AWS', slug: 'vault-aws' };
const lists: Record<string, unknown[]> = { '/v1/providers': [stored], '/v1/integrations': [oauthIntegration], '/v1/secret-references': [reference] };

async function open(scopes: string[], sent: unknown[][] = []) {
  const identity = fakeIdentity({ get: async (path: string) => page(lists[path] ?? []), send: async (...args) => (sent.push(args), {} as never) }, scopes);
  const view = await render(<ProvidersPage />, identity);
  cleanup = view.unmount;
  await settle();
  return view;
}

const ALL = ['virtual_keys.list', 'virtual_keys.create', 'virtual_keys.update', 'virtual_keys.delete'];

describe('the provider forms', () => {
  test('a stored key shows only masked; the key box starts empty, is a password box, and an empty one is not sent', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    expect(view.container.querySelector('table')?.textContent).toContain('sk-f********0000');
    await click(button(view.container, 'Edit Main'));
    const key = byLabel<HTMLInputElement>(view.container, 'Provider key');
    expect(key.type).toBe('password');
    expect(key.value).toBe('');
    expect(view.container.textContent).toContain('Stored as sk-f********0000; leave empty to keep it');
    await typeInto(byLabel(view.container, 'Note'), 'rotated soon');
    await click(button(view.container, 'Save provider'));
    await settle();
    expect(sent).toEqual([['PUT', '/v1/providers/p1', { name: 'Main', ai_provider_id: 'openai', note: 'rotated soon' }]]);
  });

  test('a new key typed in is sent once, and the form closes', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'New provider'));
    await typeInto(byLabel(view.container, 'Name'), 'Backup');
    await typeInto(byLabel(view.container, 'Provider key'), 'sk-typed-secret');
    await click(button(view.container, 'Create provider'));
    await settle();
    expect(sent).toEqual([['POST', '/v1/providers', { name: 'Backup', ai_provider_id: 'openai', key: 'sk-typed-secret' }]]);
    expect(view.container.querySelector('form')).toBeNull();
    expect(view.container.textContent).not.toContain('sk-typed-secret');
  });

  test("a body the spec refuses is not sent: the field and the rule are shown", async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'New provider'));
    await typeInto(byLabel(view.container, 'Name'), 'Bad');
    await typeInto(byLabel(view.container, 'AI provider'), 'Open AI');
    await click(button(view.container, 'Create provider'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toMatch(/^Not saved: ai_provider_id must match pattern/);
    expect(sent).toEqual([]);
  });

  test('without write scopes there is no New button and Edit and Delete are disabled', async () => {
    const view = await open(['virtual_keys.list']);
    expect(button(view.container, 'New provider')).toBeUndefined();
    expect(button(view.container, 'Edit Main').disabled).toBe(true);
    expect(button(view.container, 'Delete Main').disabled).toBe(true);
  });

  test('delete asks once more, then calls DELETE', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'Delete Main'));
    expect(sent).toEqual([]);
    await click(button(view.container, 'Confirm deleting Main'));
    await settle();
    expect(sent).toEqual([['DELETE', '/v1/providers/p1']]);
  });
});

describe('the integration form', () => {
  test('an integration limited to listed workspaces sends them, and its key like a provider key', async () => {
    const sent: unknown[][] = [];
    const view = await open([...ALL, 'integrations.list', 'integrations.create'], sent);
    await click(button(view.container, 'New integration'));
    await typeInto(byLabel(view.container, 'Name'), 'Shared OpenAI');
    const key = byLabel<HTMLInputElement>(view.container, 'Provider key');
    expect(key.type).toBe('password');
    await typeInto(key, 'sk-org-secret');
    const all = [...view.container.querySelectorAll('label')].find((l) => l.textContent === 'All workspaces')!.querySelector('input')!;
    await click(all);
    await typeInto(byLabel(view.container, 'Workspace ids or slugs'), 'research, lab');
    await click(button(view.container, 'Create integration'));
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/integrations', { name: 'Shared OpenAI', ai_provider_id: 'openai', key: 'sk-org-secret', workspace_access: { all_workspaces: false, workspace_ids: ['research', 'lab'] } }],
    ]);
  });
});

const labelled = (container: HTMLElement, text: string) => [...container.querySelectorAll('label')].some((l) => l.textContent === text);

describe('cloud fields, auth types, secret mappings and attached limits', () => {
  test('a Bedrock provider: AWS fields by name, the secret key a password box, a secret mapping picked from the references, limits as JSON', async () => {
    const sent: unknown[][] = [];
    const view = await open([...ALL, 'secret_references.list'], sent);
    await click(button(view.container, 'New provider'));
    expect(labelled(view.container, 'AWS region')).toBe(false);
    await typeInto(byLabel(view.container, 'Name'), 'Claude on AWS');
    await typeInto(byLabel(view.container, 'AI provider'), 'bedrock');
    await typeInto(byLabel(view.container, 'AWS region'), 'eu-west-1');
    await typeInto(byLabel(view.container, 'AWS access key id'), 'AKIAEXAMPLE');
    const secret = byLabel<HTMLInputElement>(view.container, 'AWS secret access key');
    expect(secret.type).toBe('password');
    await typeInto(secret, 'aws-typed-secret');
    await typeInto(byLabel(view.container, 'Role to assume (ARN)'), 'arn:aws:iam::123456789012:role/gw');
    await click(button(view.container, 'Add a secret mapping'));
    await settle();
    await typeInto(byLabel(view.container, 'Fills'), 'configurations.aws_session_token');
    await typeInto(byLabel(view.container, 'Secret reference'), 'sr-1');
    await typeInto(byLabel(view.container, 'Usage limit (JSON)'), '{"type": "cost", "credit_limit": 50, "periodic_reset": "monthly"}');
    await typeInto(byLabel(view.container, 'Rate limits (JSON)'), '[{"type": "requests", "unit": "minute", "value": 60}]');
    await click(button(view.container, 'Create provider'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')).toBeNull();
    expect(sent).toEqual([
      [
        'POST',
        '/v1/providers',
        {
          name: 'Claude on AWS',
          ai_provider_id: 'bedrock',
          configurations: { aws_region: 'eu-west-1', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: 'aws-typed-secret', aws_role_arn: 'arn:aws:iam::123456789012:role/gw' },
          secret_mappings: [{ target_field: 'configurations.aws_session_token', secret_reference_id: 'sr-1' }],
          usage_limits: { type: 'cost', credit_limit: 50, periodic_reset: 'monthly' },
          rate_limits: [{ type: 'requests', unit: 'minute', value: 60 }],
        },
      ],
    ]);
  });

  test('an Azure provider with advanced JSON the spec refuses is not sent, naming the field', async () => {
    const sent: unknown[][] = [];
    const view = await open(ALL, sent);
    await click(button(view.container, 'New provider'));
    await typeInto(byLabel(view.container, 'Name'), 'Azure');
    await typeInto(byLabel(view.container, 'AI provider'), 'azure-openai');
    await typeInto(byLabel(view.container, 'Azure resource name'), 'res');
    await typeInto(byLabel(view.container, 'More configurations (JSON)'), '{"deployment": "typo"}');
    await click(button(view.container, 'Create provider'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toBe('Not saved: configurations has an unknown key "deployment"');
    await typeInto(byLabel(view.container, 'More configurations (JSON)'), '[1]');
    await click(button(view.container, 'Create provider'));
    await settle();
    expect(view.container.querySelector('[role="alert"]')?.textContent).toBe('Not saved: configurations (advanced) must be a JSON object');
    expect(sent).toEqual([]);
  });

  test('an OAuth integration: stored fields shown, the client secret only masked; an edit sends the changed fields and leaves the secret out', async () => {
    const sent: unknown[][] = [];
    const view = await open([...ALL, 'integrations.list', 'integrations.update'], sent);
    await click(button(view.container, 'Edit Entra'));
    expect(byLabel<HTMLSelectElement>(view.container, 'Auth type').value).toBe('oauthClientCredentials');
    expect(labelled(view.container, 'Provider key')).toBe(false);
    expect(byLabel<HTMLInputElement>(view.container, 'Client id').value).toBe('client-1');
    const secret = byLabel<HTMLInputElement>(view.container, 'Client secret');
    expect(secret.type).toBe('password');
    expect(secret.value).toBe('');
    expect(view.container.textContent).toContain('Stored as cs-a********9999; leave empty to keep it');
    await typeInto(byLabel(view.container, 'Scope'), 'https://cognitiveservices.azure.com/.default');
    await click(button(view.container, 'Save integration'));
    await settle();
    expect(sent).toEqual([
      [
        'PUT',
        '/v1/integrations/i1',
        {
          name: 'Entra',
          configurations: {
            resource_name: 'res', deployment_id: 'gpt4o', api_version: '2024-10-21',
            oauth_token_endpoint: 'https://login.example/token', oauth_client_id: 'client-1', oauth_scope: 'https://cognitiveservices.azure.com/.default',
          },
          workspace_access: { all_workspaces: true, workspace_ids: [] },
        },
      ],
    ]);
  });

  test('a new workload-identity integration sends auth_type and the Azure workload ids, and no key', async () => {
    const sent: unknown[][] = [];
    const view = await open([...ALL, 'integrations.list', 'integrations.create'], sent);
    await click(button(view.container, 'New integration'));
    await typeInto(byLabel(view.container, 'Name'), 'AKS');
    await typeInto(byLabel(view.container, 'AI provider'), 'azure-openai');
    await typeInto(byLabel(view.container, 'Provider key'), 'sk-not-for-workload');
    await typeInto(byLabel(view.container, 'Auth type'), 'workload');
    await typeInto(byLabel(view.container, 'Workload client id'), 'cid');
    await typeInto(byLabel(view.container, 'Workload tenant id'), 'tid');
    await click(button(view.container, 'Create integration'));
    await settle();
    expect(sent).toEqual([
      ['POST', '/v1/integrations', { name: 'AKS', ai_provider_id: 'azure-openai', auth_type: 'workload', configurations: { azure_workload_client_id: 'cid', azure_workload_tenant_id: 'tid' }, workspace_access: { all_workspaces: true, workspace_ids: [] } }],
    ]);
  });
});
