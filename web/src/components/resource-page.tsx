/**
 * A list and a detail on one documented resource: the list is a ResourceTable whose first column
 * opens the record at `{page}/{id}`; the detail shows chosen facts, any extra panels the page adds,
 * and the whole record as JSON (as gw answered it: secrets stay masked).
 */
import { useEffect, useRef, type ComponentType, type ReactNode } from 'react';
import { useIdentity } from '../identity-context';
import { Link } from '../router';
import { useAsync } from '../use-async';
import { JsonView } from './json-view';
import { inSentence, ResourceTable, type Column } from './resource-table';
import { ErrorNote, Loading } from './status';

export interface ResourceSpec<T> {
  /** The page's own path in the console (`/audit`), where `{page}/{id}` opens a record. */
  page: string;
  /** What the table and the heading call the records (`MCP servers`). */
  label: string;
  listPath: string;
  detailPath: (id: string) => string;
  id: (item: T) => string;
  name: (item: T) => string;
  /** The columns after the first (the name, linking to the detail). */
  columns: Column<T>[];
  facts?: (item: T) => [string, ReactNode][];
  /** Panels below the facts (a server's tools, a run's steps); `reload` reads the record again after a panel changed it. */
  Extra?: ComponentType<{ item: T; reload: () => void }>;
}

export function ResourceList<T>({ spec, query, refresh }: { spec: ResourceSpec<T>; query?: Record<string, string | number>; refresh?: number }) {
  const first: Column<T> = { name: 'Name', cell: (item) => <Link to={`${spec.page}/${encodeURIComponent(spec.id(item))}`}>{spec.name(item) || spec.id(item)}</Link> };
  return <ResourceTable<T & { id?: string }> path={spec.listPath} label={spec.label} columns={[first, ...spec.columns] as Column<T & { id?: string }>[]} query={query} refresh={refresh} rowKey={(item) => spec.id(item)} />;
}

export function ResourceDetail<T>({ spec, id }: { spec: ResourceSpec<T>; id: string }) {
  const { api } = useIdentity();
  const record = useAsync(() => api.get<T>(spec.detailPath(id)), [api, id]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [record.data]);
  const item = record.data;
  return (
    <section aria-labelledby="detail-title">
      <p>
        <Link to={spec.page}>← All {inSentence(spec.label)}</Link>
      </p>
      <h1 id="detail-title" tabIndex={-1} ref={heading}>
        {item ? spec.name(item) || id : id}
      </h1>
      <ErrorNote error={record.error} title={`Could not load ${id}`} />
      {!item && !record.error && <Loading what="Loading" />}
      {item && (
        <>
          {spec.facts && (
            <dl className="facts" aria-label="Summary">
              {spec.facts(item).map(([name, value]) => (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd>{value ?? '—'}</dd>
                </div>
              ))}
            </dl>
          )}
          {spec.Extra && <spec.Extra item={item} reload={record.reload} />}
          <h2>As gw answers it</h2>
          <JsonView value={item} label="Record as JSON" />
        </>
      )}
    </section>
  );
}

/** A whole page: the list, or at `{page}/{id}` the detail, with an optional block above the list (filters, a form). */
export function ResourcePage<T>({ spec, rest, title, intro, query, children }: { spec: ResourceSpec<T>; rest: string; title: string; intro?: ReactNode; query?: Record<string, string | number>; children?: ReactNode }) {
  const id = decodeURIComponent(rest.replace(/^\//, ''));
  if (id) return <ResourceDetail spec={spec} id={id} />;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        {title}
      </h1>
      {intro && <p className="hint">{intro}</p>}
      {children}
      <ResourceList spec={spec} query={query} />
    </section>
  );
}

export const show = {
  time: (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—'),
  unix: (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toLocaleString() : '—'),
};
