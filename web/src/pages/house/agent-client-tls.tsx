/**
 * An agent integration's client certificate (mTLS), edited through the documented update
 * (`PUT /v2/agent-integrations/{id}` with `client_tls`): the certificate and the CA bundle are
 * shown back; the private key is write-only (a text box, as PEM needs its line breaks, that starts
 * empty), named after saving only by gw's masked form, and an empty key box keeps the stored key.
 */
import { useState, type FormEvent } from 'react';
import type { AgentIntegration } from '../../api/types';
import { can } from '../../api/identity';
import { Field } from '../../components/field';
import { ErrorNote } from '../../components/status';
import { useIdentity } from '../../identity-context';
import { FormProblem, useAction } from '../../use-action';

type ClientTls = AgentIntegration['client_tls'];

export function AgentClientTls({ item, reload }: { item: AgentIntegration; reload: () => void }) {
  const identity = useIdentity();
  const [stored, setStored] = useState<ClientTls>(item.client_tls);
  const [certificate, setCertificate] = useState(item.client_tls?.certificate ?? '');
  const [privateKey, setPrivateKey] = useState('');
  const [ca, setCa] = useState(item.client_tls?.ca_certificates ?? '');
  const [saved, setSaved] = useState<string>();
  const { busy, error, run } = useAction();
  const mayEdit = can(identity, 'agent_integrations.update');

  /** Sends `client_tls` (null removes it); building it may throw a FormProblem, shown like an API error. */
  const write = (clientTls: () => Record<string, unknown> | null, done: string) =>
    run(async () => {
      setSaved(undefined);
      const body = { client_tls: clientTls() };
      const updated = await identity.api.send<AgentIntegration>('PUT', `/v2/agent-integrations/${item.id}`, body);
      setStored(updated.client_tls);
      setCertificate(updated.client_tls?.certificate ?? '');
      setCa(updated.client_tls?.ca_certificates ?? '');
      setPrivateKey('');
      setSaved(done);
      reload(); // the summary and the record below show the change
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void write(() => {
      if (!certificate.trim()) throw new FormProblem('The certificate (PEM) is required');
      if (!stored && !privateKey) throw new FormProblem('The private key (PEM) is required with a new certificate');
      return { certificate, ...(privateKey ? { private_key: privateKey } : {}), ca_certificates: ca.trim() ? ca : null };
    }, 'Client certificate saved');
  };

  return (
    <section aria-labelledby="client-tls-title">
      <h2 id="client-tls-title">Client certificate (mTLS)</h2>
      <p className="hint">{stored ? `gw presents this certificate to the agent; its private key is stored as ${stored.private_key}.` : 'None: gw connects to the agent without a client certificate.'}</p>
      {mayEdit && (
        <form onSubmit={submit} aria-label="Client certificate">
          <Field label="Certificate (PEM)" hint="The client certificate, followed by its intermediates if any">
            <textarea className="code-editor small" rows={4} spellCheck={false} value={certificate} onChange={(e) => setCertificate(e.target.value)} />
          </Field>
          {/* A PEM key has line breaks a password box would drop: a write-only text box that starts empty. */}
          <Field label="Private key (PEM)" hint={stored ? `Stored as ${stored.private_key.trim()}; leave empty to keep it` : 'Write-only: gw stores it encrypted and shows it masked'}>
            <textarea className="code-editor small" rows={3} spellCheck={false} autoComplete="off" data-secret="true" value={privateKey} onChange={(e) => setPrivateKey(e.target.value)} />
          </Field>
          <Field label="CA bundle (PEM)" hint="Optional: certificates trusted for the agent's server certificate">
            <textarea className="code-editor small" rows={3} spellCheck={false} value={ca} onChange={(e) => setCa(e.target.value)} />
          </Field>
          <div className="actions">
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save client certificate'}
            </button>
            {stored && (
              <button type="button" className="secondary" disabled={busy} onClick={() => void write(() => null, 'Client certificate removed')}>
                Remove client certificate
              </button>
            )}
          </div>
        </form>
      )}
      <ErrorNote error={error} title="Could not save the client certificate" />
      {saved && <p role="status">{saved}</p>}
    </section>
  );
}
