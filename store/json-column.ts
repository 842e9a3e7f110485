/**
 * JSON columns are jsonb on Postgres and text on SQLite. Values are always written as JSON
 * text (pg would otherwise turn a JS array into a Postgres array) and read back either way.
 */
export function toJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return value instanceof JsonText ? value.text : JSON.stringify(value);
}

/**
 * A value serialised once already (request log bodies, measured against the size cap on the way
 * in): written as this text, not serialised again.
 */
export class JsonText {
  constructor(
    readonly text: string,
    /** `text`'s UTF-8 bytes, when gw holds them (an upstream's answer as it came): sent without encoding the text again. */
    readonly bytes?: Buffer,
  ) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

export function fromJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
