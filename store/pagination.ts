import type { Knex } from 'knex';
import { ValidationError } from '../core/errors.js';

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

type CursorKey = [string | number, string];

function decodeCursor(cursor: string): CursorKey {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(key) && key.length === 2 && typeof key[1] === 'string') return key as CursorKey;
  } catch {
    // fall through to the error below
  }
  throw new ValidationError('cursor is not a cursor this list returned', 'cursor', 'invalid_cursor');
}

function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * Rows after a keyset position (sortColumn, id) in the direction `op` gives. The bound on
 * sortColumn alone is redundant but sargable: without it the engines read the index from its
 * start and filter, so every page of a long walk cost as much as the whole walk so far.
 */
export function afterKeyset(query: Knex.QueryBuilder, op: '<' | '>', sortColumn: string, sortValue: unknown, idColumn: string, id: unknown): void {
  query
    .andWhere(sortColumn, `${op}=`, sortValue as Knex.Value)
    .andWhere((q) => q.where(sortColumn, op, sortValue as Knex.Value).orWhere((q2) => q2.where(sortColumn, '=', sortValue as Knex.Value).andWhere(idColumn, op, id as Knex.Value)));
}

/**
 * Keyset pagination, newest first, over (sortColumn, id): stable under inserts and fast on
 * any table size given an index on the two columns.
 */
export async function paginate<Row, T>(
  query: Knex.QueryBuilder,
  page: PageRequest,
  toItem: (row: Row) => T,
  sortColumn = 'created_at',
  idColumn = 'id',
): Promise<Page<T>> {
  const limit = page.limit ?? 20;
  if (page.cursor) {
    const [sortValue, id] = decodeCursor(page.cursor);
    afterKeyset(query, '<', sortColumn, sortValue, idColumn, id);
  }
  const rows = (await query.orderBy(sortColumn, 'desc').orderBy(idColumn, 'desc').limit(limit + 1)) as Row[];
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1] as Record<string, unknown> | undefined;
  return {
    object: 'list',
    data: pageRows.map(toItem),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor([last[sortColumn] as string | number, last[idColumn] as string]) : null,
  };
}

export interface KeyPage {
  keys: string[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * One page of distinct keys held in memory (a limit policy's entities), in ascending order, with
 * opaque cursors like `paginate`'s: keys added between pages never shift the next page.
 */
export function pageOfKeys(keys: readonly string[], page: PageRequest): KeyPage {
  const limit = page.limit ?? 20;
  const sorted = [...keys].sort();
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor)[1];
  const start = after === undefined ? 0 : sorted.findIndex((key) => key > after);
  const rest = start < 0 ? [] : sorted.slice(start);
  const hasMore = rest.length > limit;
  const pageKeys = rest.slice(0, limit);
  return { keys: pageKeys, has_more: hasMore, next_cursor: hasMore ? encodeCursor(['key', pageKeys[pageKeys.length - 1]!]) : null };
}
