/**
 * A fake provider batch API on 127.0.0.1 speaking OpenAI's files and batches wire: multipart
 * `POST /files`, `GET /files/{id}` and `/files/{id}/content`, `POST /batches`, `GET /batches/{id}`,
 * `POST /batches/{id}/cancel`, with OpenAI's file and batch objects and error body. Paths are taken
 * below `/v1` (OpenAI) and `/openai` (Azure). Its batches move only when the test moves them
 * (`progress`, `complete`, `settleCancel`), so no assertion depends on timing. Every request is
 * recorded; held to the wire by test/batches/native-batches.test.ts with the official client.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

interface StoredFile {
  id: string;
  purpose: string;
  filename: string;
  content: Buffer;
  created_at: number;
}

export type FakeBatch = Record<string, unknown> & { id: string; status: string; input_file_id: string; request_counts: { total: number; completed: number; failed: number } };

export interface FakeBatchApi {
  /** Origin only, for fixed-host provider overrides and custom hosts (`${origin}/v1`). */
  origin: string;
  requests: RecordedRequest[];
  files: Map<string, StoredFile>;
  batches: Map<string, FakeBatch>;
  /** Sets a batch's status and counts, as the provider would while it runs. */
  progress(id: string, status: string, counts: { total: number; completed: number; failed: number }): void;
  /** Runs every input line (a chat answer echoing it, or an error for lines whose body says `fail`), writes the files, completes the batch. */
  complete(id: string): { output: Buffer; errors: Buffer };
  /** A batch in `cancelling` becomes `cancelled`, with what ran so far (nothing). */
  settleCancel(id: string): void;
  /** The next answer to a request whose path ends as given is this error instead. */
  failNext(pathEnd: string, status: number, message: string): void;
  close(): Promise<void>;
}

const now = () => Math.floor(Date.now() / 1000);

function fileObject(file: StoredFile) {
  return { id: file.id, object: 'file', bytes: file.content.length, created_at: file.created_at, filename: file.filename, purpose: file.purpose, status: 'processed', status_details: null };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, code: string | null = null): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param: null, code } });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeBatchApi(): Promise<FakeBatchApi> {
  const requests: RecordedRequest[] = [];
  const files = new Map<string, StoredFile>();
  const batches = new Map<string, FakeBatch>();
  const failures: Array<{ pathEnd: string; status: number; message: string }> = [];
  let sequence = 0;
  const nextId = (prefix: string) => `${prefix}${(++sequence).toString().padStart(6, '0')}`;

  function addFile(purpose: string, filename: string, content: Buffer): StoredFile {
    const file = { id: nextId('file-up'), purpose, filename, content, created_at: now() };
    files.set(file.id, file);
    return file;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/(v1|openai)(?=\/)/, '');
    const method = req.method ?? 'GET';
    requests.push({ method, path: url.pathname + url.search, headers: req.headers });
    const failure = failures.findIndex((item) => path.endsWith(item.pathEnd));
    if (failure >= 0) {
      const [item] = failures.splice(failure, 1);
      return sendError(res, item!.status, item!.message);
    }
    if (req.headers.authorization !== 'Bearer sk-provider' && req.headers['api-key'] !== 'sk-provider') return sendError(res, 401, 'Incorrect API key provided', 'invalid_api_key');

    if (method === 'POST' && path === '/files') {
      const body = await readBody(req);
      const form = await new Request('http://fake/files', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body }).formData();
      const upload = form.get('file');
      if (!(upload instanceof Blob) || typeof form.get('purpose') !== 'string') return sendError(res, 400, 'file and purpose are required');
      const file = addFile(String(form.get('purpose')), (upload as File).name ?? 'upload', Buffer.from(await upload.arrayBuffer()));
      return sendJson(res, 200, fileObject(file));
    }
    const fileMatch = /^\/files\/([^/]+)(\/content)?$/.exec(path);
    if (method === 'GET' && fileMatch) {
      const file = files.get(decodeURIComponent(fileMatch[1]!));
      if (!file) return sendError(res, 404, `No such File object: ${fileMatch[1]}`);
      if (!fileMatch[2]) return sendJson(res, 200, fileObject(file));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.content.length });
      return void res.end(file.content);
    }
    if (method === 'POST' && path === '/batches') {
      const body = JSON.parse((await readBody(req)).toString()) as Record<string, unknown>;
      const input = files.get(String(body.input_file_id));
      if (!input) return sendError(res, 400, `No such File object: ${String(body.input_file_id)}`);
      const batch: FakeBatch = {
        id: nextId('batch_up'),
        object: 'batch',
        endpoint: String(body.endpoint),
        errors: null,
        input_file_id: input.id,
        completion_window: String(body.completion_window),
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        created_at: now(),
        in_progress_at: null,
        expires_at: now() + 86_400,
        finalizing_at: null,
        completed_at: null,
        failed_at: null,
        expired_at: null,
        cancelling_at: null,
        cancelled_at: null,
        request_counts: { total: 0, completed: 0, failed: 0 },
        metadata: (body.metadata as Record<string, string> | undefined) ?? null,
      };
      batches.set(batch.id, batch);
      return sendJson(res, 200, batch);
    }
    const batchMatch = /^\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    if (batchMatch) {
      const batch = batches.get(decodeURIComponent(batchMatch[1]!));
      if (!batch) return sendError(res, 404, `No batch ${batchMatch[1]}`);
      if (method === 'GET' && !batchMatch[2]) return sendJson(res, 200, batch);
      if (method === 'POST' && batchMatch[2]) {
        if (!['validating', 'in_progress', 'finalizing'].includes(batch.status)) return sendError(res, 409, `Cannot cancel a batch with status ${batch.status}`);
        Object.assign(batch, { status: 'cancelling', cancelling_at: now() });
        return sendJson(res, 200, batch);
      }
    }
    // Anything else (a chat completion, say) is not what a native batch should send.
    sendError(res, 404, `The fake batch API has no ${method} ${path}`);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, 500, error instanceof Error ? error.message : String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function batchOf(id: string): FakeBatch {
    const batch = batches.get(id);
    if (!batch) throw new Error(`the fake has no batch ${id}`);
    return batch;
  }

  return {
    origin,
    requests,
    files,
    batches,
    progress(id, status, counts) {
      const batch = batchOf(id);
      Object.assign(batch, { status, request_counts: { ...counts }, in_progress_at: batch.in_progress_at ?? now() });
    },
    complete(id) {
      const batch = batchOf(id);
      const lines = files.get(batch.input_file_id)!.content.toString().split('\n').filter((line) => line.trim() !== '');
      const output: string[] = [];
      const errors: string[] = [];
      for (const [index, text] of lines.entries()) {
        const line = JSON.parse(text) as { custom_id: string; body: { messages?: Array<{ content?: string }> } };
        const said = line.body.messages?.at(-1)?.content ?? '';
        if (said === 'fail') {
          errors.push(JSON.stringify({ id: `batch_req_${index}`, custom_id: line.custom_id, response: { status_code: 400, request_id: `req_${index}`, body: { error: { message: 'refused', type: 'invalid_request_error', param: null, code: null } } }, error: null }));
        } else {
          const completion = { id: `chatcmpl-${index}`, object: 'chat.completion', created: now(), model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: `Provider said: ${said}`, refusal: null }, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } };
          output.push(JSON.stringify({ id: `batch_req_${index}`, custom_id: line.custom_id, response: { status_code: 200, request_id: `req_${index}`, body: completion }, error: null }));
        }
      }
      const outputFile = addFile('batch_output', 'batch_output.jsonl', Buffer.from(output.map((line) => line + '\n').join('')));
      const errorFile = errors.length > 0 ? addFile('batch_output', 'batch_errors.jsonl', Buffer.from(errors.map((line) => line + '\n').join(''))) : undefined;
      Object.assign(batch, {
        status: 'completed',
        output_file_id: outputFile.id,
        error_file_id: errorFile?.id ?? null,
        finalizing_at: now(),
        completed_at: now(),
        request_counts: { total: lines.length, completed: output.length, failed: errors.length },
      });
      return { output: outputFile.content, errors: errorFile?.content ?? Buffer.alloc(0) };
    },
    settleCancel(id) {
      Object.assign(batchOf(id), { status: 'cancelled', cancelled_at: now() });
    },
    failNext(pathEnd, status, message) {
      failures.push({ pathEnd, status, message });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
