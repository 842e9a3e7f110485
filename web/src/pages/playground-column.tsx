/** One model of the playground: where it sends, its conversation (editable), tool answers, and the log row of its last call. */
import { useId, useState } from 'react';
import type { AssistantAnswer } from '../api/chat-stream';
import type { ChatMessage, ConfigRecord, LogSummary, Provider } from '../api/types';
import { Field } from '../components/field';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { Link } from '../router';
import { pendingToolCalls, textOf, type Choice } from './playground-request';

export interface ColumnState {
  choice: Choice;
  thread: ChatMessage[];
  /** The answer while it streams in (then appended to the thread). */
  live?: AssistantAnswer;
  running: boolean;
  error?: unknown;
  traceId?: string;
  log?: LogSummary | 'not found';
  /** What the person answers each pending tool call with, by call id. */
  toolResults: Record<string, string>;
}

export const newColumn = (model: string): ColumnState => ({ choice: { route: '', model }, thread: [], running: false, toolResults: {} });

interface Props {
  name: string;
  column: ColumnState;
  change: (update: (column: ColumnState) => ColumnState) => void;
  providers: Provider[];
  configs: ConfigRecord[];
  models: string[];
  fromPrompt: boolean;
  canListLogs: boolean;
}

function ToolCalls({ message }: { message: ChatMessage }) {
  if (message.role !== 'assistant' || !message.tool_calls?.length) return null;
  return (
    <ul className="tool-calls" aria-label="Tool calls">
      {message.tool_calls.map((call) => (
        <li key={call.id}>
          <code>
            {call.function.name}({call.function.arguments})
          </code>{' '}
          <span className="muted">{call.id}</span>
        </li>
      ))}
    </ul>
  );
}

export function PlaygroundColumn({ name, column, change, providers, configs, models, fromPrompt, canListLogs }: Props) {
  const listId = useId();
  const [editing, setEditing] = useState<number>();
  const setChoice = (patch: Partial<Choice>) => change((c) => ({ ...c, choice: { ...c.choice, ...patch } }));
  const setThread = (thread: ChatMessage[]) => change((c) => ({ ...c, thread }));
  const pending = column.running ? [] : pendingToolCalls(column.thread);
  const { log } = column;

  return (
    <section className="play-column" aria-label={name}>
      <h2>{name}</h2>
      <div className="filters">
        <Field label="Provider or config" hint={fromPrompt ? "Empty: the prompt's own provider" : 'Empty: the model names its provider as @slug/model'}>
          <select value={column.choice.route} onChange={(e) => setChoice({ route: e.target.value })}>
            <option value="">{fromPrompt ? "The prompt's own" : 'From the model name'}</option>
            <optgroup label="Saved providers">
              {providers.map((p) => (
                <option key={p.id} value={`provider:${p.slug}`}>
                  @{p.slug} ({p.ai_provider_id})
                </option>
              ))}
            </optgroup>
            <optgroup label="Configs">
              {configs.map((c) => (
                <option key={c.id} value={`config:${c.slug}`}>
                  {c.name} ({c.slug})
                </option>
              ))}
            </optgroup>
          </select>
        </Field>
        <Field label="Model" hint={fromPrompt ? "Empty: the prompt's own model" : 'Pick @slug/model from the saved providers, or type any name'}>
          <input value={column.choice.model} onChange={(e) => setChoice({ model: e.target.value })} list={listId} autoComplete="off" />
        </Field>
        <datalist id={listId}>
          {models.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
      </div>

      <div data-testid="playground-output">
        <ol className="transcript" aria-label={`Conversation with ${name}`}>
          {column.thread.map((message, index) => (
            <li key={index} className={`turn turn-${message.role}`}>
              <strong className="turn-role">{message.role === 'tool' ? `tool (${message.tool_call_id})` : message.role}</strong>
              {editing === index ? (
                <Field label={`Message ${index + 1}`}>
                  <textarea rows={3} value={textOf(message)} onChange={(e) => setThread(column.thread.map((m, i) => (i === index ? ({ ...m, content: e.target.value } as ChatMessage) : m)))} />
                </Field>
              ) : (
                textOf(message) && <div className="pre-wrap">{textOf(message)}</div>
              )}
              <ToolCalls message={message} />
              <div className="turn-actions">
                <button type="button" className="link" onClick={() => setEditing(editing === index ? undefined : index)} disabled={column.running} aria-label={`${editing === index ? 'Done editing' : 'Edit'} message ${index + 1} of ${name}`}>
                  {editing === index ? 'Done' : 'Edit'}
                </button>
                <button type="button" className="link" onClick={() => (setEditing(undefined), setThread(column.thread.filter((_, i) => i !== index)))} disabled={column.running} aria-label={`Remove message ${index + 1} of ${name}`}>
                  Remove
                </button>
              </div>
            </li>
          ))}
          {column.running && (
            <li className="turn turn-assistant">
              <strong className="turn-role">assistant</strong>
              <output className="answer" aria-live="polite" aria-busy="true">
                {column.live?.content || (column.live?.tool_calls.length ? '' : '…')}
              </output>
              {column.live && <ToolCalls message={{ role: 'assistant', content: null, tool_calls: column.live.tool_calls }} />}
            </li>
          )}
        </ol>
        {!column.thread.length && !column.running && <p className="empty">No messages yet.</p>}
      </div>

      {pending.length > 0 && (
        <fieldset>
          <legend>Answer the tool calls</legend>
          {pending.map((call) => (
            <Field key={call.id} label={`Result of ${call.function.name} (${call.id})`} hint="Sent as a tool message with the next Send">
              <textarea rows={2} value={column.toolResults[call.id] ?? ''} onChange={(e) => change((c) => ({ ...c, toolResults: { ...c.toolResults, [call.id]: e.target.value } }))} />
            </Field>
          ))}
        </fieldset>
      )}

      <ErrorNote error={column.error} title="The call failed" />
      {column.traceId && (
        <div className="made-log">
          <h3>The log row it made</h3>
          <p>
            Trace id <code>{column.traceId}</code>
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
            !column.running && <p role="status">{canListLogs ? 'Looking for the log row…' : 'This key cannot list logs.'}</p>
          )}
        </div>
      )}
    </section>
  );
}
