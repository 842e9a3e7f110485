/**
 * A pass-through request body, read only as far as gw needs its `model` (to pick a saved provider
 * from `@slug/model`, and for the log): a JSON body whole (bounded by the body limit, like every
 * JSON body gw reads), a multipart body until its `model` field has passed (at most `holdLimit`
 * bytes are held; the rest streams on, still scanned), any other body not at all. withModel()
 * puts the model without its `@slug/` prefix into the bytes sent upstream.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { JSON_TYPE, MAX_BODY_BYTES, MULTIPART_TYPE, readBodyBytes } from '../../core/body.js';
import { ValidationError } from '../../core/errors.js';
import { boundaryOf, MultipartModelScanner, replaceModelField } from './multipart-model.js';

export interface ProxyRequestBody {
  /** The body's `model` as sent (a saved provider's `@slug/` included), when known so far. */
  readonly model: string | undefined;
  /** Sends `model` upstream in place of the body's own. */
  withModel(model: string): void;
  /** The whole body (a signed call), the rest read with `readRest`. */
  whole(readRest: (req: IncomingMessage) => Promise<Buffer>): Promise<Buffer>;
  /** What goes upstream when it is not signed: bytes, a stream (held bytes then the rest), or nothing. */
  upstream(): Buffer | Readable | undefined;
  /** The upstream content-length: the client's, corrected for a rewritten model; undefined when the transport sets it. */
  contentLength(declared: string | undefined): string | undefined;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** A body gw does not read: it streams upstream as it arrives. */
function untouched(req: IncomingMessage): ProxyRequestBody {
  return {
    model: undefined,
    withModel: () => undefined,
    whole: (readRest) => readRest(req),
    upstream: () => (hasBody(req) ? req : undefined),
    contentLength: (declared) => declared,
  };
}

function jsonBody(bytes: Buffer): ProxyRequestBody {
  let parsed: Record<string, unknown> | undefined;
  try {
    const value = JSON.parse(bytes.toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value as Record<string, unknown>;
  } catch {
    // Not JSON after all: it goes upstream as it is, for the provider to judge.
  }
  let sent = bytes;
  return {
    model: typeof parsed?.model === 'string' ? parsed.model : undefined,
    withModel(model) {
      sent = Buffer.from(JSON.stringify({ ...parsed, model }));
    },
    whole: async () => sent,
    upstream: () => (sent.length > 0 ? sent : undefined),
    contentLength: () => undefined,
  };
}

class MultipartBody implements ProxyRequestBody {
  private head: Buffer;
  private lengthChange = 0;

  constructor(
    private readonly req: IncomingMessage,
    held: Buffer[],
    private readonly complete: boolean,
    private readonly scanner: MultipartModelScanner,
    private readonly boundary: string,
  ) {
    this.head = Buffer.concat(held);
  }

  get model(): string | undefined {
    return this.scanner.model;
  }

  withModel(model: string): void {
    const rewritten = replaceModelField(this.head, this.boundary, model);
    if (!rewritten) throw new ValidationError('The multipart body\'s model field could not be rewritten', 'model', 'invalid_multipart');
    this.lengthChange += rewritten.length - this.head.length;
    this.head = rewritten;
  }

  async whole(readRest: (req: IncomingMessage) => Promise<Buffer>): Promise<Buffer> {
    if (this.complete) return this.head;
    const rest = readRest(this.req);
    // Held bodies were paused; the reader's listeners are on, so nothing is missed.
    this.req.resume();
    return Buffer.concat([this.head, await rest]);
  }

  upstream(): Buffer | Readable {
    if (this.complete) return this.head;
    const { head, req, scanner } = this;
    return Readable.from(
      (async function* () {
        yield head;
        // The model may come after a file: scanned on the way for the log, not held.
        for await (const chunk of req) {
          scanner.write(chunk as Buffer);
          yield chunk as Buffer;
        }
        scanner.end();
      })(),
      { objectMode: false },
    );
  }

  contentLength(declared: string | undefined): string | undefined {
    if (this.complete) return undefined;
    return declared === undefined ? undefined : String(Number(declared) + this.lengthChange);
  }
}

/** Holds chunks until the scanner has the model (or gives up), `holdLimit` bytes are held, or the body ends. */
function holdUntilModel(req: IncomingMessage, scanner: MultipartModelScanner, boundary: string, holdLimit: number): Promise<ProxyRequestBody> {
  return new Promise((resolve, reject) => {
    const held: Buffer[] = [];
    let size = 0;
    let ended = false;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      // Paused before the listener goes, so no chunk is dropped; streaming upstream resumes it.
      if (!ended) req.pause();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(new MultipartBody(req, held, ended, scanner, boundary));
    };
    const onData = (chunk: Buffer) => {
      held.push(chunk);
      size += chunk.length;
      scanner.write(chunk);
      if (size >= holdLimit) settle();
    };
    const onEnd = () => {
      ended = true;
      scanner.end();
    };
    const onError = (error: Error) => {
      settled = true;
      reject(error);
    };
    scanner.onDone(settle);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}

export async function readProxyRequestBody(req: IncomingMessage, holdLimit: number): Promise<ProxyRequestBody> {
  const contentType = req.headers['content-type'] ?? '';
  const encoding = req.headers['content-encoding'];
  // A compressed body is not read: gw sends it on as it came.
  if (encoding !== undefined && encoding !== 'identity') return untouched(req);
  if (JSON_TYPE.test(contentType)) return jsonBody(await readBodyBytes(req, MAX_BODY_BYTES));
  const boundary = MULTIPART_TYPE.test(contentType) && hasBody(req) ? boundaryOf(contentType) : undefined;
  const scanner = boundary === undefined ? undefined : MultipartModelScanner.for(contentType);
  if (!scanner || boundary === undefined) return untouched(req);
  return holdUntilModel(req, scanner, boundary, holdLimit);
}
