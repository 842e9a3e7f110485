import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { afterKeyset } from '../pagination.js';

/** The tables of the Assistants surface; each row holds one wire object in `body`. */
export type AssistantTable = 'assistants' | 'assistant_threads' | 'assistant_messages' | 'assistant_runs' | 'assistant_run_steps';

export interface AssistantObjectRow<Body> {
  id: string;
  organisation_id: string;
  workspace_id: string;
  thread_id: string | null;
  run_id: string | null;
  position: number;
  body: Body;
}

/** Who owns an object and which parent it sits under: every read is scoped by it. */
export interface ObjectScope {
  workspaceId: string;
  threadId?: string;
  runId?: string;
}

/** OpenAI's list request and envelope: `after`/`before` are object ids, `order` is by creation. */
export interface ListRequest {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
  before?: string;
}

export interface ObjectList<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

let lastMs = 0;
let counter = 0;

/** Epoch ms x 1000 + a counter: objects made in one millisecond (a thread's initial messages) keep their order. */
export function nextPosition(now: number): number {
  const ms = Math.floor(now);
  if (ms === lastMs) counter = Math.min(counter + 1, 999);
  else {
    lastMs = ms;
    counter = 0;
  }
  return ms * 1000 + counter;
}

const toRow = <Body>(row: Record<string, unknown>): AssistantObjectRow<Body> => ({
  id: row.id as string,
  organisation_id: row.organisation_id as string,
  workspace_id: row.workspace_id as string,
  thread_id: (row.thread_id as string | null) ?? null,
  run_id: (row.run_id as string | null) ?? null,
  position: Number(row.position),
  body: fromJson(row.body, {} as Body),
});

/** One repository for the five tables: they share their shape and their list rules. */
export class AssistantObjectsRepository<Body extends { id: string }> {
  constructor(
    protected readonly db: Knex | Knex.Transaction,
    protected readonly table: AssistantTable,
  ) {}

  protected scoped(scope: ObjectScope): Knex.QueryBuilder {
    const query = this.db(this.table).where('workspace_id', scope.workspaceId);
    if (scope.threadId !== undefined) query.andWhere('thread_id', scope.threadId);
    if (scope.runId !== undefined) query.andWhere('run_id', scope.runId);
    return query;
  }

  async insert(row: AssistantObjectRow<Body>, extra: Record<string, unknown> = {}): Promise<void> {
    await this.db(this.table).insert({ ...row, body: toJson(row.body), ...extra });
  }

  async get(scope: ObjectScope, id: string): Promise<AssistantObjectRow<Body> | undefined> {
    const row = await this.scoped(scope).andWhere('id', id).first();
    return row ? toRow<Body>(row) : undefined;
  }

  async replaceBody(id: string, body: Body, extra: Record<string, unknown> = {}): Promise<void> {
    await this.db(this.table).where({ id }).update({ body: toJson(body), ...extra });
  }

  async delete(scope: ObjectScope, id: string): Promise<boolean> {
    return (await this.scoped(scope).andWhere('id', id).del()) > 0;
  }

  /** Everything under a thread (a deleted thread takes its messages, runs and steps with it). */
  async deleteThreadContents(threadId: string): Promise<void> {
    await this.db(this.table).where('thread_id', threadId).del();
  }

  /** Oldest first, every object under the scope (a thread's messages for a model turn). */
  async all(scope: ObjectScope): Promise<AssistantObjectRow<Body>[]> {
    const rows = (await this.scoped(scope).orderBy('position', 'asc').orderBy('id', 'asc')) as Record<string, unknown>[];
    return rows.map((row) => toRow<Body>(row));
  }

  async list(scope: ObjectScope, request: ListRequest, filter: Record<string, string> = {}): Promise<ObjectList<Body>> {
    return listByPosition(() => this.scoped(scope), request, (row) => toRow<Body>(row).body, filter);
  }
}

/**
 * OpenAI's list paging over rows ordered by (`position`, `id`): `after` moves along the order,
 * `before` against it; a cursor id that is not in the list pages from its edge. `scoped` builds a
 * fresh query over the rows the caller may see (the cursor is looked up in it too).
 */
export async function listByPosition<T extends { id: string }>(
  scoped: () => Knex.QueryBuilder,
  request: ListRequest,
  toItem: (row: Record<string, unknown>) => T,
  filter: Record<string, string> = {},
): Promise<ObjectList<T>> {
  const limit = request.limit ?? 20;
  const order = request.order ?? 'desc';
  const query = scoped().andWhere(filter);
  const cursorId = request.after ?? request.before;
  const forward = request.before === undefined;
  const ascending = order === 'asc' ? forward : !forward;
  if (cursorId !== undefined) {
    const cursor = await scoped().andWhere('id', cursorId).first('position', 'id');
    if (cursor) {
      const op = ascending ? '>' : '<';
      const position = Number(cursor.position);
      afterKeyset(query, op, 'position', position, 'id', cursor.id);
    }
  }
  const direction = ascending ? 'asc' : 'desc';
  const rows = (await query.orderBy('position', direction).orderBy('id', direction).limit(limit + 1)) as Record<string, unknown>[];
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit).map(toItem);
  if (!forward) page.reverse();
  return { object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page[page.length - 1]?.id ?? null, has_more: hasMore };
}
