import { createHash, hash } from 'node:crypto';

/**
 * Hex SHA-256 of a string. The one-shot crypto.hash (Node 20.12+) skips the Hash object that
 * createHash builds; the request path hashes API keys and credential headers on every call.
 */
export const sha256Hex: (text: string) => string =
  typeof hash === 'function' ? (text) => hash('sha256', text, 'hex') : (text) => createHash('sha256').update(text).digest('hex');
