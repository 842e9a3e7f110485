import { JsonText } from '../core/json-text.js';

/**
 * JSON columns are jsonb on Postgres and text on SQLite. Values are always written as JSON
 * text (pg would otherwise turn a JS array into a Postgres array) and read back either way.
 */
export function toJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return value instanceof JsonText ? value.text : JSON.stringify(value);
}

export function fromJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
