import type { ReactNode } from 'react';
import type { Page } from '../api/types';
import { useIdentity } from '../identity-context';
import { useAsync } from '../use-async';
import { ErrorNote, Loading, Empty } from './status';

/** A label inside a sentence: its first letter lowered unless it starts an acronym (`MCP servers`). */
export function inSentence(label: string): string {
  return /^[A-Z][A-Z]/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
}

export interface Column<T> {
  name: string;
  cell: (item: T) => ReactNode;
}

/**
 * A list endpoint's first page as a table (secrets are never among the columns). A change of
 * `refresh` loads it again (after a write).
 */
export function ResourceTable<T extends { id?: string }>({ path, label, columns, query, refresh = 0, rowKey }: { path: string; label: string; columns: Column<T>[]; query?: Record<string, string | number>; refresh?: number; rowKey?: (item: T) => string }) {
  const { api } = useIdentity();
  const list = useAsync(() => api.get<Page<T>>(path, { limit: 100, ...query }), [api, path, JSON.stringify(query), refresh]);
  if (list.error) return <ErrorNote error={list.error} title={`Could not load ${inSentence(label)}`} />;
  if (!list.data) return <Loading what={`Loading ${inSentence(label)}`} />;
  if (!list.data.data.length) return <Empty>No {inSentence(label)} yet.</Empty>;
  // The table scrolls sideways in its own box, so a narrow window never scrolls the whole page.
  return (
    <div className="table-scroll">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.name}>
                {c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {list.data.data.map((item, i) => (
            <tr key={rowKey?.(item) ?? item.id ?? i}>
              {columns.map((c) => (
                <td key={c.name}>{c.cell(item)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
