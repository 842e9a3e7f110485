import { useEffect, useState, type FormEvent } from 'react';
import { runChat } from '../api/chat-stream';
import type { Api } from '../api/client';
import { can } from '../api/identity';
import { promptVariables, setVariable } from '../api/prompt-variables';
import type { ChatMessage, ConfigRecord, LogSummary, Model, Page, Prompt, PromptVersion, Provider, RenderPromptResponse } from '../api/types';
import { Field } from '../components/field';
import { ErrorNote } from '../components/status';
import { useIdentity } from '../identity-context';
import { useAsync } from '../use-async';
import { newColumn, PlaygroundColumn, type ColumnState } from './playground-column';
import { PlaygroundParams } from './playground-params';
import { answerMessage, chatTarget, DEFAULT_PARAMS, paramsBody, pendingToolCalls, promptTarget, type Params } from './playground-request';

type Source = 'messages' | 'prompt';

const emptyPage = <T,>(): Promise<Page<T>> => Promise.resolve({ object: 'list', data: [], has_more: false, next_cursor: null });
const NAMES = ['Model A', 'Model B'];

// Logs are written in batches just after the answer: look a few times before giving up.
async function findLog(api: Api, trace: string): Promise<LogSummary | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const page = await api.get<Page<LogSummary>>('/v1/logs', { trace_id: trace, limit: 1 }).catch(() => undefined);
    if (page?.data[0]) return page.data[0];
    await new Promise((resolve) => setTimeout(resolve, 250 * Math.min(attempt + 1, 4)));
  }
  return undefined;
}

/**
 * A conversation (a system prompt and turns, or a prompt from the library with its variables)
 * with parameters and tools, sent to one model or two side by side, streamed or not; each
 * column keeps its own answers and shows the log row its last call made.
 */
export function PlaygroundPage() {
  const identity = useIdentity();
  const { api } = identity;
  const providers = useAsync(() => (can(identity, 'virtual_keys.list') ? api.get<Page<Provider>>('/v1/providers', { limit: 100 }) : emptyPage<Provider>()), [api]);
  const configs = useAsync(() => (can(identity, 'configs.list') ? api.get<Page<ConfigRecord>>('/v1/configs', { limit: 100 }) : emptyPage<ConfigRecord>()), [api]);
  const prompts = useAsync(() => (can(identity, 'prompts.list') ? api.get<Page<Prompt>>('/v1/prompts', { limit: 100 }) : emptyPage<Prompt>()), [api]);
  // The saved providers' models as @slug/model; a failure only leaves the list empty (free text still works).
  const models = useAsync(() => api.get<Page<Model>>('/v1/models').catch(() => emptyPage<Model>()), [api]);

  const [source, setSource] = useState<Source>('messages');
  const [system, setSystem] = useState('');
  const [draft, setDraft] = useState('Hello!');
  const [params, setParams] = useState<Params>(DEFAULT_PARAMS);
  const [compare, setCompare] = useState(false);
  const [columns, setColumns] = useState<ColumnState[]>([newColumn(''), newColumn('')]);
  const [prompt, setPrompt] = useState('');
  const [version, setVersion] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string>();

  const address = prompt && version ? `${prompt}@${version}` : prompt;
  // Tagged with their prompt, so that a list still showing the previous prompt's versions is not read for this one.
  const versions = useAsync(
    () => (prompt && can(identity, 'prompts.read') ? api.get<Page<PromptVersion>>(`/v1/prompts/${encodeURIComponent(prompt)}/versions`, { limit: 100 }) : emptyPage<PromptVersion>()).then((p) => ({ prompt, list: p.data })),
    [api, prompt],
  );
  // The template of the chosen version (or the default one), once the versions are in.
  const versionsReady = !versions.loading && versions.data?.prompt === prompt;
  const template = versions.data?.list.find((v) => (version ? String(v.prompt_version) === version : v.is_default))?.prompt_template.string;
  const variables = useAsync(() => (address && versionsReady ? promptVariables(api, address, template) : Promise.resolve([])), [api, address, versionsReady]);
  useEffect(() => setVersion(''), [prompt]);

  const change = (index: number) => (update: (column: ColumnState) => ColumnState) => setColumns((all) => all.map((c, i) => (i === index ? update(c) : c)));
  const active = compare ? [0, 1] : [0];
  const running = active.some((i) => columns[i]!.running);
  const fromPrompt = source === 'prompt';

  const clear = () => setColumns((all) => all.map((c) => ({ ...newColumn(c.choice.model), choice: c.choice })));
  const toggleCompare = (on: boolean) => {
    setCompare(on);
    // The second model starts from the same conversation.
    if (on) setColumns(([a, b]) => [a!, { ...b!, thread: b!.thread.length ? b!.thread : a!.thread }]);
  };

  const callColumn = async (index: number, messages: ChatMessage[], target: Parameters<typeof runChat>[1]) => {
    const trace = crypto.randomUUID();
    const set = change(index);
    set((c) => ({ ...c, thread: messages, live: undefined, running: true, error: undefined, traceId: trace, log: undefined, toolResults: {} }));
    try {
      const answer = await runChat(api, target, trace, params.stream, (live) => set((c) => ({ ...c, live })));
      set((c) => ({ ...c, thread: [...messages, answerMessage(answer)] }));
    } catch (error) {
      set((c) => ({ ...c, error }));
    } finally {
      set((c) => ({ ...c, running: false, live: undefined }));
    }
    if (can(identity, 'logs.list')) {
      const log = await findLog(api, trace);
      set((c) => (c.traceId === trace ? { ...c, log: log ?? 'not found' } : c));
    }
  };

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    const body = paramsBody(params);
    if ('problem' in body) return setProblem(body.problem);
    let filled: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) if (variables.data?.includes(name)) filled = setVariable(filled, name, value);
    // Each column's conversation so far, with the answers to its tool calls and the new message.
    const turns = active.map((i) => {
      const column = columns[i]!;
      const tools: ChatMessage[] = pendingToolCalls(column.thread).map((call) => ({ role: 'tool', tool_call_id: call.id, content: column.toolResults[call.id] ?? '' }));
      return { column, added: [...tools, ...(draft.trim() ? [{ role: 'user', content: draft } as ChatMessage] : [])] };
    });
    let rendered: ChatMessage[] = [];
    if (fromPrompt) {
      if (!prompt) return setProblem('Choose a prompt');
      // The prompt's messages start the conversation, so that later turns can send them back.
      if (turns.some((t) => !t.column.thread.length)) {
        try {
          rendered = (await api.send<RenderPromptResponse>('POST', `/v1/prompts/${encodeURIComponent(address)}/render`, { variables: filled })).data.messages as unknown as ChatMessage[];
        } catch (error) {
          return setProblem((error as Error).message);
        }
      }
    }
    const calls = [];
    for (const [n, { column, added }] of turns.entries()) {
      const base = column.thread.length ? column.thread : rendered;
      const messages = [...base, ...added];
      if (fromPrompt) {
        calls.push({ index: active[n]!, messages, target: promptTarget(address, column.choice, filled, column.thread.length || added.length ? messages : undefined, body.value) });
        continue;
      }
      if (!messages.length) return setProblem('Write a message');
      const target = chatTarget(column.choice, system, messages, body.value);
      if ('problem' in target) return setProblem(`${NAMES[active[n]!]}: ${target.problem}`);
      calls.push({ index: active[n]!, messages, target: target.value });
    }
    setDraft('');
    await Promise.all(calls.map((call) => callColumn(call.index, call.messages, call.target)));
  };

  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title" tabIndex={-1}>
        Playground
      </h1>
      <ErrorNote error={providers.error ?? configs.error ?? prompts.error ?? versions.error} title="Could not load the choices" />
      <form onSubmit={send} aria-label="Chat request" noValidate>
        <fieldset className="modes">
          <legend>Start from</legend>
          <label className="check">
            <input type="radio" name="source" value="messages" checked={!fromPrompt} onChange={() => (setSource('messages'), clear())} />
            Messages written here
          </label>
          <label className="check">
            <input type="radio" name="source" value="prompt" checked={fromPrompt} onChange={() => (setSource('prompt'), clear())} />A prompt from the library
          </label>
        </fieldset>

        {fromPrompt ? (
          <div className="filters">
            <Field label="Prompt">
              <select value={prompt} onChange={(e) => (setPrompt(e.target.value), clear())} required>
                <option value="">Choose a prompt</option>
                {prompts.data?.data.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Version">
              <select value={version} onChange={(e) => (setVersion(e.target.value), clear())} disabled={!prompt}>
                <option value="">The default</option>
                {versions.data?.list.map((v) => (
                  <option key={v.id} value={String(v.prompt_version)}>
                    Version {v.prompt_version}
                    {v.is_default ? ' (default)' : ''}
                  </option>
                ))}
              </select>
            </Field>
            {variables.data?.map((name) => (
              <Field key={name} label={name} hint="A variable of the template">
                <input value={values[name] ?? ''} onChange={(e) => setValues((old) => ({ ...old, [name]: e.target.value }))} />
              </Field>
            ))}
            {address && variables.data?.length === 0 && <p className="empty">This version needs no variables.</p>}
            <ErrorNote error={variables.error} title="Could not read the prompt's variables" />
          </div>
        ) : (
          <Field label="System prompt" hint="Sent first, as the system message, with every turn">
            <textarea rows={3} value={system} onChange={(e) => setSystem(e.target.value)} />
          </Field>
        )}

        <PlaygroundParams params={params} setParams={setParams} />

        <label className="check">
          <input type="checkbox" checked={compare} onChange={(e) => toggleCompare(e.target.checked)} disabled={running} />
          Compare two models side by side
        </label>
        <div className={compare ? 'play-columns two-up' : 'play-columns'}>
          {active.map((i) => (
            <PlaygroundColumn
              key={i}
              name={NAMES[i]!}
              column={columns[i]!}
              change={change(i)}
              providers={providers.data?.data ?? []}
              configs={configs.data?.data ?? []}
              models={models.data?.data.map((m) => m.id) ?? []}
              fromPrompt={fromPrompt}
              canListLogs={can(identity, 'logs.list')}
            />
          ))}
        </div>

        <Field label="Message" hint={`${fromPrompt ? 'Optional: a user turn after the prompt' : 'The next user turn'}; Ctrl+Enter sends`}>
          <textarea rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.currentTarget.form?.requestSubmit()} />
        </Field>
        <Field label="Mock response" hint="Optional: gw answers this text itself, with no upstream call">
          <input value={params.mock} onChange={(e) => setParams((old) => ({ ...old, mock: e.target.value }))} />
        </Field>
        {problem && (
          <p className="error" role="alert">
            Not sent: {problem}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={running}>
            {running ? 'Answering…' : params.stream ? 'Send (streamed)' : 'Send'}
          </button>{' '}
          <button type="button" className="secondary" onClick={clear} disabled={running}>
            Clear conversation
          </button>
        </div>
      </form>
    </section>
  );
}
