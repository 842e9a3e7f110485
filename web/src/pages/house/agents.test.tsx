import { afterEach, describe, expect, test } from 'vitest';
import { byLabel, click, fakeIdentity, render, settle, typeInto } from '../../test/render';
import { AgentsPage } from './agents';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const button = (container: HTMLElement, name: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === name) as HTMLButtonElement | undefined;
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nsecret-key-body\n-----END PRIVATE KEY-----\n';
const agent = { id: 'a1', name: 'Planner', slug: 'planner', url: 'https://agent.test/rpc', auth_type: 'bearer', status: 'active', agent_card: null, client_tls: null, updated_at: '' };

async function openAgent(record: Record<string, unknown>, scopes = ['agent_integrations.list', 'agent_integrations.read', 'agent_integrations.update']) {
  const sent: Array<[string, string, unknown]> = [];
  let current = record;
  const send = async (method: string, path: string, body: { client_tls: Record<string, unknown> | null }) => {
    sent.push([method, path, body]);
    // gw's answer: the key masked, never echoed.
    current = { ...current, client_tls: body.client_tls && { certificate: body.client_tls.certificate, ca_certificates: body.client_tls.ca_certificates ?? null, private_key: '-----...----\n' } };
    return current as never;
  };
  const view = await render(<AgentsPage rest="/a1" />, fakeIdentity({ get: async () => current as never, send: send as never }, scopes));
  cleanup = view.unmount;
  await settle();
  return { view, sent };
}

describe('the agent integration detail: client certificate (mTLS)', () => {
  test('a certificate, its key and a CA bundle are saved through the documented update; the key is then shown only masked and the box is empty', async () => {
    const { view, sent } = await openAgent(agent);
    expect(view.container.textContent).toContain('None: gw connects to the agent without a client certificate.');
    await typeInto(byLabel(view.container, 'Certificate (PEM)'), CERT);
    await typeInto(byLabel(view.container, 'Private key (PEM)'), KEY);
    await typeInto(byLabel(view.container, 'CA bundle (PEM)'), CERT);
    await click(button(view.container, 'Save client certificate')!);
    await settle();
    expect(sent).toEqual([['PUT', '/v2/agent-integrations/a1', { client_tls: { certificate: CERT, private_key: KEY, ca_certificates: CERT } }]]);
    const key = byLabel<HTMLTextAreaElement>(view.container, 'Private key (PEM)');
    expect(key.value).toBe('');
    expect(view.container.textContent).toContain('Stored as -----...----');
    expect(view.container.textContent).not.toContain('secret-key-body');
    expect(view.container.querySelector('[role="status"]')?.textContent).toBe('Client certificate saved');
    await settle();
    expect(view.container.querySelector('[aria-label="Summary"]')?.textContent).toContain('set (key -----...----');
  });

  test('with a stored certificate, an empty key box keeps the key (not sent); Remove sends null', async () => {
    const { view, sent } = await openAgent({ ...agent, client_tls: { certificate: CERT, ca_certificates: null, private_key: '-----...----\n' } });
    expect(byLabel<HTMLTextAreaElement>(view.container, 'Certificate (PEM)').value).toBe(CERT);
    await click(button(view.container, 'Save client certificate')!);
    await settle();
    expect(sent[0]).toEqual(['PUT', '/v2/agent-integrations/a1', { client_tls: { certificate: CERT, ca_certificates: null } }]);
    await click(button(view.container, 'Remove client certificate')!);
    await settle();
    expect(sent[1]).toEqual(['PUT', '/v2/agent-integrations/a1', { client_tls: null }]);
    expect(view.container.textContent).toContain('None: gw connects');
  });

  test('a new certificate without its key is refused before anything is sent; without the update scope there is no form', async () => {
    const { view, sent } = await openAgent(agent);
    await typeInto(byLabel(view.container, 'Certificate (PEM)'), CERT);
    await click(button(view.container, 'Save client certificate')!);
    await settle();
    expect(sent).toEqual([]);
    expect(view.container.textContent).toContain('The private key (PEM) is required with a new certificate');
    cleanup?.();
    const readOnly = await openAgent(agent, ['agent_integrations.list', 'agent_integrations.read']);
    expect(button(readOnly.view.container, 'Save client certificate')).toBeUndefined();
  });
});
