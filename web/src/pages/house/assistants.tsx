/**
 * Assistants, threads and runs: the assistants list and detail; a thread opened by id (gw, as
 * OpenAI, lists no threads) with its messages and runs; and a run's steps.
 */
import { useState, type FormEvent } from 'react';
import { can } from '../../api/identity';
import type { Assistant, Run, RunStep, Thread, ThreadMessage } from '../../api/types';
import { Field } from '../../components/field';
import { JsonView } from '../../components/json-view';
import { ResourceDetail, ResourceList, show, type ResourceSpec } from '../../components/resource-page';
import { ResourceTable } from '../../components/resource-table';
import { useIdentity } from '../../identity-context';
import { Link, navigate } from '../../router';

const assistants: ResourceSpec<Assistant> = {
  page: '/assistants',
  label: 'Assistants',
  listPath: '/v1/assistants',
  detailPath: (id) => `/v1/assistants/${id}`,
  id: (a) => a.id,
  name: (a) => a.name ?? a.id,
  columns: [
    { name: 'Model', cell: (a) => a.model },
    { name: 'Tools', cell: (a) => a.tools.map((t) => t.type).join(', ') || 'none' },
    { name: 'Created', cell: (a) => show.unix(a.created_at) },
  ],
  facts: (a) => [
    ['Id', a.id],
    ['Model', a.model],
    ['Tools', a.tools.map((t) => t.type).join(', ') || 'none'],
    ['Instructions', a.instructions],
    ['Created', show.unix(a.created_at)],
  ],
};

function messageText(message: ThreadMessage): string {
  return message.content.map((part) => ('text' in part && part.text ? (part.text as { value: string }).value : `[${part.type}]`)).join('\n');
}

function ThreadExtra({ item }: { item: Thread }) {
  const base = `/v1/threads/${item.id}`;
  return (
    <>
      <h2>Messages</h2>
      <ResourceTable<ThreadMessage>
        path={`${base}/messages`}
        label="Messages"
        query={{ order: 'asc' }}
        columns={[
          { name: 'When', cell: (m) => show.unix(m.created_at) },
          { name: 'Role', cell: (m) => m.role },
          { name: 'Text', cell: (m) => <span className="pre-wrap">{messageText(m)}</span> },
          { name: 'Run', cell: (m) => m.run_id ?? '—' },
        ]}
      />
      <h2>Runs</h2>
      <ResourceTable<Run>
        path={`${base}/runs`}
        label="Runs"
        columns={[
          { name: 'Run', cell: (r) => <Link to={`/assistants/threads/${item.id}/runs/${r.id}`}>{r.id}</Link> },
          { name: 'Status', cell: (r) => r.status },
          { name: 'Model', cell: (r) => r.model },
          { name: 'Tokens', cell: (r) => r.usage?.total_tokens ?? '—' },
          { name: 'Created', cell: (r) => show.unix(r.created_at) },
        ]}
      />
    </>
  );
}

const threadSpec: ResourceSpec<Thread> = {
  page: '/assistants',
  label: 'Threads',
  listPath: '',
  detailPath: (id) => `/v1/threads/${id}`,
  id: (t) => t.id,
  name: (t) => `Thread ${t.id}`,
  columns: [],
  facts: (t) => [
    ['Id', t.id],
    ['Created', show.unix(t.created_at)],
    ['Metadata', t.metadata && Object.keys(t.metadata).length ? JSON.stringify(t.metadata) : 'none'],
  ],
  Extra: ThreadExtra,
};

function RunSteps({ threadId, runId }: { threadId: string; runId: string }) {
  return (
    <section aria-labelledby="run-title">
      <p>
        <Link to={`/assistants/threads/${threadId}`}>← Thread {threadId}</Link>
      </p>
      <h1 id="run-title" tabIndex={-1}>
        Run {runId}
      </h1>
      <h2>Steps</h2>
      <ResourceTable<RunStep>
        path={`/v1/threads/${threadId}/runs/${runId}/steps`}
        label="Run steps"
        query={{ order: 'asc' }}
        columns={[
          { name: 'Step', cell: (s) => s.id },
          { name: 'Type', cell: (s) => s.type },
          { name: 'Status', cell: (s) => s.status },
          { name: 'Tokens', cell: (s) => s.usage?.total_tokens ?? '—' },
          { name: 'Detail', cell: (s) => <JsonView value={s.step_details} label={`Details of step ${s.id}`} /> },
        ]}
      />
    </section>
  );
}

function OpenThread() {
  const [id, setId] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (id.trim()) navigate(`/assistants/threads/${encodeURIComponent(id.trim())}`);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Open a thread">
      <Field label="Thread id" hint="gw lists no threads (as OpenAI): open one by its id">
        <input value={id} onChange={(e) => setId(e.target.value)} placeholder="thread_…" />
      </Field>
      <div className="actions">
        <button type="submit" disabled={!id.trim()}>
          Open thread
        </button>
      </div>
    </form>
  );
}

export function AssistantsPage({ rest }: { rest: string }) {
  const identity = useIdentity();
  const parts = rest.split('/').map(decodeURIComponent);
  if (parts[1] === 'threads' && parts[2] && parts[3] === 'runs' && parts[4]) return <RunSteps threadId={parts[2]} runId={parts[4]} />;
  if (parts[1] === 'threads' && parts[2]) return <ResourceDetail spec={threadSpec} id={parts[2]} />;
  if (parts[1]) return <ResourceDetail spec={assistants} id={parts[1]} />;
  return (
    <section aria-labelledby="assistants-title">
      <h1 id="assistants-title" tabIndex={-1}>
        Assistants and threads
      </h1>
      {can(identity, 'threads.read') && (
        <>
          <h2>Threads and runs</h2>
          <OpenThread />
        </>
      )}
      <h2>Assistants</h2>
      <ResourceList spec={assistants} />
    </section>
  );
}

