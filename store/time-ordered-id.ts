import { randomUUID } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Request logs are written in
 * time order, so their primary-key inserts land at the end of the index instead of on random pages.
 */
export function timeOrderedId(now: number = Date.now()): string {
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  // randomUUID's version nibble is at index 14; everything after it is random bits and the variant.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
