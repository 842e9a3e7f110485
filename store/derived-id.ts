import { createHash } from 'node:crypto';

/**
 * A UUID-shaped id derived from a name: the same name always gives the same id, so rows that must
 * exist once (a workspace's default collection, an organisation's built-in labels) can be created
 * on first use by any number of concurrent callers with "insert, ignore if the id exists".
 */
export function derivedId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
