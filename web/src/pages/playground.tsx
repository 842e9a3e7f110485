import { useState, type FormEvent } from 'react';
import { streamChat, type ChatTarget } from '../api/chat-stream';
import { can } from '../api/identity';
import type { ConfigRecord, LogSummary, Page, Prompt, Provider } from '../api/types';
import { Field } from '../components/field';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { Link } from '../router';
import { useAsync } from '../use-async';

type Mode = 'provider' | 'config' | 'prompt';

const emptyPage = <T,>(): Promise<Page<T>> => Promise.resolve({ object: 'list', data: [], has_more: false, next_cursor: null });

/** Sends a chat request through a saved provider, a config or a prompt, streamed, and shows the log row it made. */
export function PlaygroundPage() {
  const identity = useIdentity();
  const { api } = identity;
  const providers = useAsync(() => (can(identity, 'virtual_keys.list') ? api.get<Page<Provider>>('/v1/providers', { limit: 100 }) : emptyPage<Provider>()), [api]);
  const configs = useAsync(() => (can(identity, 'configs.list') ? api.get<Page<ConfigRecord>>('/v1/configs', { limit: 100 }) : emptyPage<ConfigRecord>()), [api]);
  const prompts = useAsync(() => (can(identity, 'prompts.list') ? api.get<Page<Prompt>>('/v1/prompts', { limit: 100 }) : emptyPage<Prompt>()), [api]);

  const [mode, setMode] = useState<Mode>('provider');
  const [provider, setProvider] = useState('');
  const [config, setConfig] = useState('');
  const [prompt, setPrompt] = useState('');
  const [model, setModel] = useState('gpt-4o-mini');
  const [message, setMessage] = useState('Hello!');
  const [variables, setVariables] = useState('{}');
  const [mock, setMock] = useState('');
  const [output, setOutput] = useState('');
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const [traceId, setTraceId] = useState<string>();
  const [log, setLog] = useState<LogSummary | 'not found'>();

  const targetOf = (): ChatTarget => {
    const extra: Record<string, unknown> = mock ? { mock_response: mock } : {};
    if (mode === 'prompt') {
      return { path: `/v1/prompts/${encodeURIComponent(prompt)}/completions`, headers: {}, body: { variables: JSON.parse(variables || '{}') as unknown, ...extra } };
    }
    const messages = [{ role: 'user', content: message }];
    if (mode === 'config') return { path: '/v1/chat/completions', headers: { 'x-gw-config': config }, body: { model, messages, ...extra } };
    return { path: '/v1/chat/completions', headers: { 'x-gw-provider': `@${provider}` }, body: { model, messages, ...extra } };
  };

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const trace = crypto.randomUUID();
    setOutput('');
    setError(undefined);
    setLog(undefined);
    setTraceId(trace);
    setRunning(true);
    try {
      await streamChat(api, targetOf(), trace, (text) => setOutput((old) => old + text));
    } catch (failure) {
      setError(failure);
    } finally {
      setRunning(false);
    }
    if (can(identity, 'logs.list')) setLog((await findLog(trace)) ?? 'not found');
  };

  // Logs are written in batches just after the answer: look a few times before giving up.
  const findLog = async (trace: string): Promise<LogSummary | undefined> => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const page = await api.get<Page<LogSummary>>('/v1/logs', { trace_id: trace, limit: 1 }).catch(() => undefined);
      if (page?.data[0]) return page.data[0];
      await new Promise((resolve) => setTimeout(resolve, 250 * Math.min(attempt + 1, 4)));
    }
    return undefined;
  };

  const ready = mode === 'provider' ? provider : mode === 'config' ? config : prompt;
  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title" tabIndex={-1}>
        Playground
      </h1>
      <ErrorNote error={providers.error ?? configs.error ?? prompts.error} title="Could not load the choices" />
      <form onSubmit={send} aria-label="Chat request">
        <fieldset className="modes">
          <legend>Send through</legend>
          {(['provider', 'config', 'prompt'] as Mode[]).map((m) => (
            <label key={m} className="check">
              <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
              {m === 'provider' ? 'A saved provider' : m === 'config' ? 'A config' : 'A prompt'}
            </label>
          ))}
        </fieldset>
        <div className="filters">
          {mode === 'provider' && (
            <Field label="Provider">
              <select value={provider} onChange={(e) => setProvider(e.target.value)} required>
                <option value="">Choose a provider</option>
                {providers.data?.data.map((p) => (
                  <option key={p.id} value={p.slug}>
                    {p.name} (@{p.slug}, {p.ai_provider_id})
                  </option>
                ))}
              </select>
            </Field>
          )}
          {mode === 'config' && (
            <Field label="Config">
              <select value={config} onChange={(e) => setConfig(e.target.value)} required>
                <option value="">Choose a config</option>
                {configs.data?.data.map((c) => (
                  <option key={c.id} value={c.slug}>
                    {c.name} ({c.slug})
                  </option>
                ))}
              </select>
            </Field>
          )}
          {mode === 'prompt' && (
            <Field label="Prompt">
              <select value={prompt} onChange={(e) => setPrompt(e.target.value)} required>
                <option value="">Choose a prompt</option>
                {prompts.data?.data.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {mode !== 'prompt' && (
            <Field label="Model">
              <input value={model} onChange={(e) => setModel(e.target.value)} required />
            </Field>
          )}
          <Field label="Mock response" hint="Optional: gw answers this text itself, with no upstream call">
            <input value={mock} onChange={(e) => setMock(e.target.value)} />
          </Field>
        </div>
        {mode === 'prompt' ? (
          <Field label="Variables (JSON)">
            <textarea className="code-editor" rows={4} value={variables} onChange={(e) => setVariables(e.target.value)} spellCheck={false} />
          </Field>
        ) : (
          <Field label="Message">
            <textarea rows={4} value={message} onChange={(e) => setMessage(e.target.value)} required />
          </Field>
        )}
        <button type="submit" disabled={running || !ready}>
          {running ? 'Streaming…' : 'Send (streamed)'}
        </button>
      </form>
      <ErrorNote error={error} title="The call failed" />
      <h2>Answer</h2>
      <output className="answer" aria-live="polite" aria-busy={running} data-testid="playground-output">
        {output || (running ? '…' : '—')}
      </output>
      {traceId && (
        <section aria-labelledby="made-log-title">
          <h2 id="made-log-title">The log row it made</h2>
          <p>
            Trace id <code>{traceId}</code>
          </p>
          {log === 'not found' ? (
            <p role="status">No log row with this trace id yet: look in the logs in a moment.</p>
          ) : log ? (
            <p data-testid="playground-log">
              <Link to={`/logs/${encodeURIComponent(log.id)}`}>
                {log.status} · {log.provider ?? '—'} · {log.model ?? '—'} · {fmt.count(log.total_tokens)} tokens · {fmt.usd(log.cost)} · {fmt.ms(log.latency_ms)}
              </Link>
            </p>
          ) : (
            !running && <p role="status">{can(identity, 'logs.list') ? 'Looking for the log row…' : 'This key cannot list logs.'}</p>
          )}
        </section>
      )}
    </section>
  );
}
