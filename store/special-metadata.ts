/**
 * The metadata keys gw gives a meaning (`x-gw-metadata`): who the end user is, which environment
 * and which of your customers' organisations the call is for, and which prompt produced it. Each
 * is also a request-log column, so filtering and grouping on it reads a column, not JSON.
 */
export const SPECIAL_METADATA_COLUMNS = {
  _user: 'user_id',
  _environment: 'environment',
  _organisation: 'end_organisation',
  _prompt: 'prompt_id',
} as const;

export type SpecialMetadataKey = keyof typeof SPECIAL_METADATA_COLUMNS;

/** Longest value a special key takes (they are identifiers and labels, and indexed-size columns). */
export const SPECIAL_METADATA_MAX_LENGTH = 128;

export function isSpecialMetadataKey(key: string): key is SpecialMetadataKey {
  return Object.hasOwn(SPECIAL_METADATA_COLUMNS, key);
}
