/**
 * A fake OpenAI-shaped upstream on 127.0.0.1 that fails on purpose, following a script: each
 * request takes the next behaviour (the last one repeats). Behaviours: a JSON completion, an SSE
 * stream, an error status with headers (429 + Retry-After), a hang before headers (released at
 * close), a stream cut in the middle, and embeddings.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { kind: 'ok'; content?: string }
  | { kind: 'stream'; content?: string }
  | { kind: 'status'; status: number; headers?: Record<string, string>; message?: string }
  | { kind: 'hang' }
  | { kind: 'cut-stream' }
  | { kind: 'embedding'; vector: number[] };

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface FaultUpstream {
  /** Base URL including /v1. */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

function completion(model: string, content: string) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  };
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null, usage?: unknown) {
  return `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: usage ? [] : [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...(usage ? { usage } : {}) })}\n\n`;
}

export async function startFaultUpstream(script: Behaviour[] | ((index: number, received: Received) => Behaviour)): Promise<FaultUpstream> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (part: Buffer) => (raw += part.toString()));
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const entry = { path: req.url ?? '', headers: req.headers, body };
      received.push(entry);
      const index = received.length - 1;
      const behaviour = typeof script === 'function' ? script(index, entry) : script[Math.min(index, script.length - 1)]!;
      const model = String(body.model ?? 'fake-model');
      switch (behaviour.kind) {
        case 'ok':
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(model, behaviour.content ?? `served ${index}`)));
          return;
        case 'stream': {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const content = behaviour.content ?? `served ${index}`;
          res.write(chunk(model, { role: 'assistant', content: '' }, null));
          for (const word of content.split(/(?= )/)) res.write(chunk(model, { content: word }, null));
          res.write(chunk(model, {}, 'stop'));
          if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) res.write(chunk(model, {}, null, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }));
          res.end('data: [DONE]\n\n');
          return;
        }
        case 'status':
          res
            .writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers })
            .end(JSON.stringify({ error: { message: behaviour.message ?? `upstream failed with ${behaviour.status}`, type: 'server_error', code: null, param: null } }));
          return;
        case 'hang':
          hanging.add(res);
          return;
        case 'cut-stream':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(chunk(model, { role: 'assistant', content: '' }, null));
          res.write(chunk(model, { content: 'partial' }, null));
          // Drop the connection mid-stream: no finish reason, no [DONE].
          setImmediate(() => res.socket?.destroy());
          return;
        case 'embedding':
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: behaviour.vector }], model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
          );
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    received,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL whose port refuses connections: bound, then closed. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
