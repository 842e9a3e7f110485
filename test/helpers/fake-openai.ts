/**
 * A fake OpenAI upstream on 127.0.0.1 that speaks the real wire format: chat completions as JSON
 * or as an SSE stream (role chunk, content chunks, finish chunk, a usage chunk when
 * `stream_options.include_usage`, `data: [DONE]`), tool calls when the request offers tools, the
 * OpenAI error body, and GET /models. It is held to the format by test/providers/fake-openai.test.ts,
 * where the official `openai` client reads it directly.
 *
 * Each request takes the next queued behaviour (`next(...)`), else `reply`. Every request is
 * recorded (method, path, headers, parsed body) for assertions on what gw sent upstream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerLegacyOrEmbeddings } from './fake-openai-more.js';
import { answerResponses, chatViewOf } from './fake-openai-responses.js';

export type FakeBehaviour =
  /**
   * A normal answer: a tool call when the request has tools, else text (JSON or stream as asked).
   * `toolCall` names the call to make instead (its arguments a JSON text), or `null` for text even when tools are offered.
   */
  | { kind: 'reply'; content?: string; finishReason?: 'stop' | 'length'; toolCall?: { name: string; arguments: string } | null }
  | { kind: 'error'; status: number; message?: string; code?: string; headers?: Record<string, string> }
  /** Accepts the connection and never answers (released at close). */
  | { kind: 'hang' }
  /** Sends a stream's first chunks, then `data: {"error": ...}`. */
  | { kind: 'stream-error'; message?: string }
  /** Sends a stream's first chunks, then drops the connection (no [DONE]). */
  | { kind: 'cut-stream' }
  /** Sends the first chunk, then stalls without ending the stream. */
  | { kind: 'stall-stream' };

export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface FakeOpenAi {
  /** Base URL including /v1, as a custom host or an OpenAI client baseURL. */
  url: string;
  /** Origin only (for fixed-host provider overrides). */
  origin: string;
  requests: FakeRequest[];
  /** Answers the caller closed before they were complete (gw aborting an upstream call). */
  readonly abortedByCaller: number;
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  readonly connections: number;
  next(...behaviours: FakeBehaviour[]): void;
  /** How to answer when no behaviour is queued (default: a plain reply): for clients that decide their own calls. */
  script(answer: ((request: FakeRequest) => FakeBehaviour) | undefined): void;
  close(): Promise<void>;
}

export const FAKE_CREATED = 1_700_000_000;
export const FAKE_USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

type Json = Record<string, unknown>;

function lastUserText(body: Json): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : 'hello';
}

function toolCallFor(body: Json, chosen?: { name: string; arguments: string } | null): { id: string; type: 'function'; function: { name: string; arguments: string } } | undefined {
  if (chosen === null) return undefined;
  if (chosen) return { id: 'call_fake_1', type: 'function', function: chosen };
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  // Once the tool's result is in (the last message is a tool message), the model answers in text.
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  if (messages.at(-1)?.role === 'tool') return undefined;
  const first = tools[0]?.function as Json | undefined;
  if (!first || typeof first.name !== 'string') return undefined;
  return { id: 'call_fake_1', type: 'function', function: { name: first.name, arguments: JSON.stringify({ location: 'Paris' }) } };
}

function completion(body: Json, content: string, chosen?: { name: string; arguments: string } | null) {
  const toolCall = toolCallFor(body, chosen);
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: FAKE_CREATED,
    model: String(body.model),
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: toolCall ? { role: 'assistant', content: null, refusal: null, tool_calls: [toolCall] } : { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: toolCall ? 'tool_calls' : 'stop',
      },
    ],
    usage: FAKE_USAGE,
  };
}

function chunk(body: Json, delta: Json, finish: string | null): string {
  const payload = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: FAKE_CREATED, model: String(body.model), system_fingerprint: 'fp_fake', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function streamEvents(body: Json, content: string, finishReason: string = 'stop', chosen?: { name: string; arguments: string } | null): string[] {
  const events = [chunk(body, { role: 'assistant', content: '', refusal: null }, null)];
  const toolCall = toolCallFor(body, chosen);
  if (toolCall) {
    events.push(chunk(body, { tool_calls: [{ index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } }] }, null));
    events.push(chunk(body, { tool_calls: [{ index: 0, function: { arguments: toolCall.function.arguments } }] }, null));
    events.push(chunk(body, {}, 'tool_calls'));
  } else {
    for (const word of content.split(/(?= )/)) events.push(chunk(body, { content: word }, null));
    events.push(chunk(body, {}, finishReason));
  }
  if ((body.stream_options as Json | undefined)?.include_usage === true) {
    events.push(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: FAKE_CREATED, model: String(body.model), choices: [], usage: FAKE_USAGE })}\n\n`);
  }
  events.push('data: [DONE]\n\n');
  return events;
}

function answer(res: ServerResponse, behaviour: FakeBehaviour, request: FakeRequest, hanging: Set<ServerResponse>): void {
  const body = request.body;
  if (request.method === 'GET' && request.path.endsWith('/models') && behaviour.kind === 'reply') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-fake-1', object: 'model', created: FAKE_CREATED, owned_by: 'fake' }] }));
    return;
  }
  if (request.method === 'POST' && behaviour.kind === 'reply' && answerLegacyOrEmbeddings(res, request.path, body, behaviour.content)) return;
  const content = behaviour.kind === 'reply' && behaviour.content !== undefined ? behaviour.content : `You said: ${lastUserText(body)}`;
  switch (behaviour.kind) {
    case 'reply':
      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of streamEvents(body, content, behaviour.finishReason, behaviour.toolCall)) res.write(event);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(completion(body, content, behaviour.toolCall)));
      }
      return;
    case 'error':
      res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
      res.end(JSON.stringify({ error: { message: behaviour.message ?? `fake failure ${behaviour.status}`, type: 'server_error', param: null, code: behaviour.code ?? null } }));
      return;
    case 'hang':
      hanging.add(res);
      return;
    case 'stream-error':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk(body, { role: 'assistant', content: '' }, null));
      res.write(chunk(body, { content: 'partial' }, null));
      res.end(`data: ${JSON.stringify({ error: { message: behaviour.message ?? 'The server had an error while processing your request', type: 'server_error', param: null, code: null } })}\n\n`);
      return;
    case 'cut-stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk(body, { role: 'assistant', content: '' }, null));
      res.write(chunk(body, { content: 'partial' }, null));
      setImmediate(() => res.socket?.destroy());
      return;
    case 'stall-stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk(body, { role: 'assistant', content: '' }, null));
      hanging.add(res);
      return;
  }
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: FakeRequest[] = [];
  const queue: FakeBehaviour[] = [];
  let scripted: ((request: FakeRequest) => FakeBehaviour) | undefined;
  const hanging = new Set<ServerResponse>();
  let abortedByCaller = 0;
  let connections = 0;
  const server = createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableEnded) abortedByCaller++;
    });
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      const request: FakeRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: raw ? (JSON.parse(raw) as Json) : {} };
      requests.push(request);
      if (request.method === 'POST' && request.path.split('?')[0]!.endsWith('/responses')) {
        // The Responses API decides as the chat endpoint would, shown the input as chat messages.
        const view = { ...request, body: chatViewOf(request.body) };
        const behaviour = queue.shift() ?? scripted?.(view) ?? { kind: 'reply' };
        if (behaviour.kind !== 'reply') return answer(res, behaviour, request, hanging);
        answerResponses(res, request.body, { text: behaviour.content ?? `You said: ${lastUserText(view.body)}`, toolCall: toolCallFor(view.body, behaviour.toolCall)?.function });
        return;
      }
      answer(res, queue.shift() ?? scripted?.(request) ?? { kind: 'reply' }, request, hanging);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    get abortedByCaller() {
      return abortedByCaller;
    },
    get connections() {
      return connections;
    },
    next: (...behaviours) => queue.push(...behaviours),
    script: (answer) => {
      scripted = answer;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
