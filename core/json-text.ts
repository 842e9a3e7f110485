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

const serialised = new WeakMap<object, string>();

/**
 * An object's JSON text, serialised at most once: a chat answer is serialised for its log row and
 * again for the client, and the two texts are the same. Only for values nobody changes after
 * they are answered (gw's answers are built anew for each request and never edited once served).
 */
export function jsonTextOf(value: object): string {
  let text = serialised.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    serialised.set(value, text);
  }
  return text;
}
