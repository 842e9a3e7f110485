/** The audit log of administrative writes: filters (action, resource, actor, time), and each entry's detail. */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { AuditLogEntry } from '../../api/types';
import { Field } from '../../components/field';
import { JsonView } from '../../components/json-view';
import { show } from '../../components/resource-page';
import { ResourceTable, type Column } from '../../components/resource-table';

const columns: Column<AuditLogEntry>[] = [
  { name: 'When', cell: (e) => show.time(e.created_at) },
  { name: 'Action', cell: (e) => e.action },
  { name: 'Actor', cell: (e) => actorOf(e) },
  { name: 'Request', cell: (e) => <span className="mono">{`${e.method} ${e.path}`}</span> },
  { name: 'Status', cell: (e) => e.status },
];

function actorOf(entry: AuditLogEntry): string {
  return entry.actor.subject ?? entry.actor.user_id ?? entry.actor.api_key_id ?? '—';
}

interface Filters {
  action: string;
  resource_type: string;
  resource_id: string;
  actor_id: string;
  start_time: string;
}

const EMPTY: Filters = { action: '', resource_type: '', resource_id: '', actor_id: '', start_time: '' };

export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [open, setOpen] = useState<AuditLogEntry>();
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(applied)) if (value) query[name] = name === 'start_time' ? new Date(value).toISOString() : value;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setApplied(draft);
  };
  const set = (name: keyof Filters) => (event: { target: { value: string } }) => setDraft((old) => ({ ...old, [name]: event.target.value }));
  const withOpen: Column<AuditLogEntry>[] = [
    ...columns,
    {
      name: 'Detail',
      cell: (e) => (
        <button type="button" className="secondary" onClick={() => setOpen(e)} aria-label={`Details of ${e.action} at ${show.time(e.created_at)}`}>
          Details
        </button>
      ),
    },
  ];
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title" tabIndex={-1}>
        Audit log
      </h1>
      <p className="hint">Every administrative write: who made it, with which credential, and what gw answered.</p>
      <form className="filters" onSubmit={submit} aria-label="Audit log filters">
        <Field label="Action" hint="The operation, e.g. createWorkspaceServiceApiKey">
          <input value={draft.action} onChange={set('action')} />
        </Field>
        <Field label="Resource type">
          <input value={draft.resource_type} onChange={set('resource_type')} />
        </Field>
        <Field label="Resource id">
          <input value={draft.resource_id} onChange={set('resource_id')} />
        </Field>
        <Field label="Actor id" hint="User or API key id">
          <input value={draft.actor_id} onChange={set('actor_id')} />
        </Field>
        <Field label="Since">
          <input type="datetime-local" value={draft.start_time} onChange={set('start_time')} />
        </Field>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button type="button" className="secondary" onClick={() => (setDraft(EMPTY), setApplied(EMPTY))}>
            Clear
          </button>
        </div>
      </form>
      {open && <AuditEntry entry={open} onClose={() => setOpen(undefined)} />}
      <ResourceTable<AuditLogEntry> path="/v1/audit-logs" label="Audit log entries" columns={withOpen} query={query} />
    </section>
  );
}

/** One entry: gw answers no single entry, so the detail is the row as listed (its request body included, secrets redacted). */
function AuditEntry({ entry, onClose }: { entry: AuditLogEntry; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [entry]);
  const facts: [string, string | number][] = [
    ['When', show.time(entry.created_at)],
    ['Action', entry.action],
    ['Actor', actorOf(entry)],
    ['Credential', entry.actor.credential ?? '—'],
    ['Request', `${entry.method} ${entry.path}`],
    ['Status', entry.status],
    ['Resource', `${entry.resource_type} ${entry.resource_id ?? ''}`],
    ['Workspace', entry.workspace_id ?? 'organisation'],
    ['IP address', entry.ip_address ?? '—'],
    ['Trace id', entry.trace_id ?? '—'],
  ];
  return (
    <div className="panel" role="region" aria-labelledby="audit-entry-title">
      <h2 id="audit-entry-title" tabIndex={-1} ref={heading}>
        {entry.action}
      </h2>
      <dl className="facts" aria-label="Audit entry">
        {facts.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h3>Request body</h3>
      <JsonView value={entry.request} label="Audit entry request body" />
      <button type="button" className="secondary" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
