import type { Knex } from 'knex';
import * as foundation from './001_foundation.js';

/**
 * Every migration, in order. Listed here (not discovered on disk) so the same list runs from
 * TypeScript sources and from the compiled build. Append only; never edit a landed one.
 */
export const migrations: Record<string, Knex.Migration> = {
  '001_foundation': foundation,
};
