/**
 * Calls to a provider's own files and batches API on behalf of one gw batch: the provider is
 * resolved from the batch's kept headers (native-target.ts), the call goes through the upstream
 * pool (custom hosts through the address guard), and each call is one request log entry of
 * endpoint `proxy`, with its method, path, status and byte counts, as a pass-through call is.
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ApiError, UpstreamError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import type { BatchRecord } from '../../store/repositories/batches.js';
import { timeOrderedId } from '../../store/time-ordered-id.js';
import { proxyLogEntry, type ProxyOutcome } from '../proxy/proxy-log.js';
import { logRequest } from '../telemetry/log-request.js';
import type { OutboundCall } from '../transport/upstream-client.js';
import { lineCall, type StoredPrincipal } from './line-call.js';
import { nativeBatchTarget } from './native-target.js';
import { AnswerTooLargeError, readCappedBody } from '../outbound/answer-cap.js';

/** A provider call that did not answer 2xx; `transient` ones (429, 5xx, no answer) are tried again later. */
export class ProviderCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** A provider's JSON answers (batch and file objects, errors) are small: read whole, up to GW_MAX_UPSTREAM_ANSWER_BYTES. */
async function readSmall(response: Dispatcher.ResponseData, maxBytes: number): Promise<string> {
  try {
    return (await readCappedBody(response.body, response.headers, maxBytes, 'The provider')).toString('utf8');
  } catch (error) {
    if (error instanceof AnswerTooLargeError) throw new ProviderCallError(error.message, error.code, false);
    throw error;
  }
}

async function readJson(response: Dispatcher.ResponseData, count: (bytes: number) => void, what: string, maxBytes: number): Promise<Record<string, unknown>> {
  const text = await readSmall(response, maxBytes);
  count(Buffer.byteLength(text));
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ProviderCallError(`The provider's answer to ${what} is not JSON`, 'provider_error', false);
  }
}

interface Body {
  content?: string | Readable;
  headers: Record<string, string>;
  bytes: number;
}

export class ProviderBatchApi {
  constructor(
    private readonly services: Services,
    /** How long a JSON call may take, and a file upload or download. */
    private readonly timeouts: { callMs: number; transferMs: number },
  ) {}

  /** The batch's endpoint as the provider names it (azure-openai drops the `/v1`). */
  async endpointFor(batch: BatchRecord): Promise<string> {
    const headers = JSON.parse(this.services.secrets.open(batch.sealed_headers)) as Record<string, string>;
    const { adapter } = await nativeBatchTarget(this.services, JSON.parse(batch.principal) as StoredPrincipal, headers);
    return adapter.batchEndpoint?.(batch.endpoint) ?? batch.endpoint;
  }

  /** A JSON call (`POST /batches`, `GET /batches/{id}`, ...): the parsed answer. */
  async json(batch: BatchRecord, method: 'GET' | 'POST', path: string, body?: object): Promise<Record<string, unknown>> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const payload: Body = { content: text, headers: { accept: 'application/json' }, bytes: text === undefined ? 0 : Buffer.byteLength(text) };
    if (text !== undefined) payload.headers['content-type'] = 'application/json';
    return this.send(batch, method, path, payload, this.timeouts.callMs, (response, count) => readJson(response, count, `${method} ${path}`, this.services.config.maxUpstreamAnswerBytes));
  }

  /** Uploads a gw file to the provider as `purpose: batch` (multipart, streamed); the provider's file id. */
  async upload(batch: BatchRecord, file: { id: string; filename: string; bytes: number }): Promise<string> {
    const boundary = `gw-${timeOrderedId(Date.now())}`;
    const filename = file.filename.replace(/["\r\n\\]/g, '_');
    const head = Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: application/jsonl\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const files = this.services.files;
    async function* parts() {
      yield head;
      yield* files.read(batch.workspace_id, file.id);
      yield tail;
    }
    const bytes = head.length + file.bytes + tail.length;
    const body = { content: Readable.from(parts()), headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(bytes) }, bytes };
    const answer = await this.send(batch, 'POST', '/files', body, this.timeouts.transferMs, (response, count) => readJson(response, count, 'POST /files', this.services.config.maxUpstreamAnswerBytes));
    if (typeof answer.id !== 'string') throw new ProviderCallError('The provider answered the file upload without a file id', 'provider_error', false);
    return answer.id;
  }

  /** Copies a provider file into a gw file of the batch's workspace (streamed); the gw file id. */
  async download(batch: BatchRecord, providerFileId: string, kind: 'output' | 'error'): Promise<string> {
    const path = `/files/${encodeURIComponent(providerFileId)}/content`;
    return this.send(batch, 'GET', path, undefined, this.timeouts.transferMs, async (response, count) => {
      async function* counted() {
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          count(chunk.length);
          yield chunk;
        }
      }
      const meta = { organisationId: batch.organisation_id, workspaceId: batch.workspace_id, purpose: 'batch_output', filename: `${batch.id}_${kind}.jsonl` };
      // Like a gw-run batch's own results, a provider's output is kept whole whatever the upload limit.
      return (await this.services.files.write(meta, counted(), Number.MAX_SAFE_INTEGER)).id;
    });
  }

  private async send<T>(
    batch: BatchRecord,
    method: OutboundCall['method'],
    path: string,
    body: Body | undefined,
    timeoutMs: number,
    read: (response: Dispatcher.ResponseData, count: (bytes: number) => void) => Promise<T>,
  ): Promise<T> {
    const { services } = this;
    const headers = JSON.parse(services.secrets.open(batch.sealed_headers)) as Record<string, string>;
    const call = lineCall(services, JSON.parse(batch.principal) as StoredPrincipal, headers, `/v1${path}`);
    call.route = `${method} /v1${path} (native batch ${batch.id})`;
    const outcome: ProxyOutcome = {
      id: timeOrderedId(call.startedAt),
      method,
      path,
      metadata: {},
      configId: null,
      provider: null,
      model: null,
      status: 200,
      firstByteMs: null,
      requestBytes: body?.bytes ?? 0,
      responseBytes: 0,
      responseContentType: null,
      upstreamMs: 0,
    };
    const principal = call.principal!;
    try {
      const target = await nativeBatchTarget(services, principal, headers);
      outcome.configId = target.configId;
      outcome.provider = target.target.provider;
      const upstream = target.request(target.target, path);
      const started = services.now();
      let response: Dispatcher.ResponseData;
      try {
        response = await services.upstreams.send(
          { method, url: upstream.url, headers: { ...body?.headers, ...upstream.headers }, body: body?.content },
          { provider: target.target.provider, customHost: target.target.customHost !== undefined, guarded: target.guarded, signal: AbortSignal.timeout(timeoutMs) },
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ProviderCallError(`${method} ${path} at ${target.target.provider} got no answer: ${reason}`, 'provider_unreachable', true);
      } finally {
        outcome.upstreamMs = services.now() - started;
      }
      outcome.status = response.statusCode;
      outcome.firstByteMs = services.now() - call.startedAt;
      const contentType = response.headers['content-type'];
      outcome.responseContentType = typeof contentType === 'string' ? contentType : null;
      if (response.statusCode >= 300) {
        const text = await readSmall(response, services.config.maxUpstreamAnswerBytes);
        outcome.responseBytes = Buffer.byteLength(text);
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // A plain-text error body is read as it is.
        }
        const error = target.adapter.parseError(response.statusCode, parsed);
        const transient = response.statusCode === 429 || response.statusCode >= 500;
        throw new ProviderCallError(`${target.target.provider} answered ${response.statusCode} to ${method} ${path}: ${error.message}`, error.code ?? 'provider_error', transient);
      }
      return await read(response, (bytes) => (outcome.responseBytes += bytes));
    } catch (error) {
      const failure = error instanceof ApiError ? error : new UpstreamError(outcome.status >= 300 ? outcome.status : 502, error instanceof Error ? error.message : String(error), error instanceof ProviderCallError ? error.code : 'upstream_error');
      outcome.error = failure;
      if (outcome.status < 300) outcome.status = failure.status;
      throw error;
    } finally {
      logRequest(call, proxyLogEntry(call, principal, outcome));
    }
  }
}
