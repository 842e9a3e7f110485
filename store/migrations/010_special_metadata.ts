import type { Knex } from 'knex';
import { dialectOf } from '../db.js';

const ADDED = [
  ['environment', '_environment'],
  ['end_organisation', '_organisation'],
  ['prompt_id', '_prompt'],
] as const;

/**
 * Columns for the special metadata keys (store/special-metadata.ts; `_user` has had user_id since
 * 004), filled from the metadata of the rows already logged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    for (const [column] of ADDED) t.string(column, 128);
  });
  const postgres = dialectOf(knex) === 'postgres';
  for (const [column, key] of ADDED) {
    const value = postgres ? `metadata->>'${key}'` : `json_extract(metadata, '$."${key}"')`;
    await knex.raw(`update request_logs set ${column} = substr(${value}, 1, 128) where ${value} is not null`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    for (const [column] of ADDED) t.dropColumn(column);
  });
}
