/**
 * The `model` field of a multipart body that streams past: busboy parses a copy of each chunk
 * (file parts are skipped as they arrive, nothing is kept), and the field's value is known as soon
 * as its part has ended. replaceModelField rewrites that part in bytes already held, so the body
 * sent upstream carries a model without gw's `@slug/` prefix.
 */
import busboy from 'busboy';

/** Model names are short; a longer field is not a model gw can use. */
const MAX_MODEL_BYTES = 1024;

export class MultipartModelScanner {
  /** The model field's value, once its part has passed. */
  model: string | undefined;
  private active = true;
  private readonly parser: busboy.Busboy;
  private readonly settled: Array<() => void> = [];

  /** Undefined when the content type names no usable boundary (the body then goes on unread). */
  static for(contentType: string): MultipartModelScanner | undefined {
    try {
      return new MultipartModelScanner(busboy({ headers: { 'content-type': contentType }, limits: { fieldSize: MAX_MODEL_BYTES } }));
    } catch {
      return undefined;
    }
  }

  private constructor(parser: busboy.Busboy) {
    this.parser = parser;
    parser.on('field', (name, value, info) => {
      if (name !== 'model' || this.model !== undefined) return;
      if (!info.valueTruncated) this.model = value;
      this.stop();
    });
    // A form that ends early fails its open file part too: unheard, that error would end the process.
    parser.on('file', (_name, file) => file.on('error', () => undefined).resume());
    // A malformed body goes upstream as it is, for the provider to judge; gw only stops reading it.
    parser.on('error', () => this.stop());
    parser.on('close', () => this.stop());
  }

  /** Whether the scan is over: the model found, the body ended, or the body is not multipart after all. */
  get done(): boolean {
    return !this.active;
  }

  write(chunk: Buffer): void {
    if (this.active) this.parser.write(chunk);
  }

  end(): void {
    if (this.active) this.parser.end();
  }

  /** Calls `listener` once the scan is over (at once if it is). */
  onDone(listener: () => void): void {
    if (this.active) this.settled.push(listener);
    else listener();
  }

  private stop(): void {
    if (!this.active) return;
    this.active = false;
    for (const listener of this.settled.splice(0)) listener();
  }
}

/** The boundary a multipart content type declares (quoted or not). */
export function boundaryOf(contentType: string): string | undefined {
  return /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)?.slice(1).find((part) => part !== undefined);
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

/**
 * `head` with the value of its form field `name` replaced, or undefined when the field's part is
 * not wholly inside `head`. Parts are found by their delimiters, which cannot occur inside content.
 */
export function replaceModelField(head: Buffer, boundary: string, value: string): Buffer | undefined {
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.from(`\r\n--${boundary}`);
  let at = head.indexOf(delimiter);
  while (at !== -1) {
    const headersStart = head.indexOf(CRLF, at + delimiter.length);
    if (headersStart === -1) return undefined;
    const headersEnd = head.indexOf(HEADERS_END, headersStart);
    if (headersEnd === -1) return undefined;
    const valueStart = headersEnd + HEADERS_END.length;
    const next = head.indexOf(nextDelimiter, valueStart);
    if (next === -1) return undefined;
    const headers = head.toString('latin1', headersStart, headersEnd);
    if (/^content-disposition:\s*form-data\s*;(?:[^\r\n]*;)?\s*name="?model"?\s*(?:;|$)/im.test(headers)) {
      return Buffer.concat([head.subarray(0, valueStart), Buffer.from(value, 'utf8'), head.subarray(next)]);
    }
    at = next + CRLF.length;
  }
  return undefined;
}
