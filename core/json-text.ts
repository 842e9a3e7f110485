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
