import type { Knex } from 'knex';

/**
 * Column conventions every migration follows: UUID text ids, ISO-8601 UTC timestamps as text
 * (sortable, identical on both engines), JSON in jsonb/text via store/json-column.ts.
 */
export function idColumn(table: Knex.CreateTableBuilder): void {
  table.string('id', 36).primary();
}

export function timestamps(table: Knex.CreateTableBuilder): void {
  table.string('created_at', 32).notNullable();
  table.string('updated_at', 32).notNullable();
}
