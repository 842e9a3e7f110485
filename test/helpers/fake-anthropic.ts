/**
 * A fake Anthropic upstream on 127.0.0.1 speaking the Messages API: POST /v1/messages (JSON or, with
 * `stream: true`, the SSE event sequence message_start, content_block_*, message_delta,
 * message_stop), Vertex AI's rawPredict / streamRawPredict paths with the same bodies, POST
 * /v1/messages/count_tokens and Vertex AI's count-tokens:rawPredict (1000 plus the number of messages), GET /v1/models, and error bodies `{type: "error", error: {type, message}}`. Each request takes the
 * reply the script gives (default: a short text answer). Held to the real format by a test in which
 * @anthropic-ai/sdk reads it.
 */
import type { ServerResponse } from 'node:http';
import { startRecordingServer, writeSse, type RecordedRequest, type RecordingServer } from './recording-server.js';

export type FakeAnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

export interface FakeAnthropicMessage {
  content: FakeAnthropicBlock[];
  stop_reason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | 'pause_turn';
  stop_sequence?: string | null;
  usage?: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
}

export type FakeAnthropicReply =
  | { kind: 'message'; message: FakeAnthropicMessage; /** Streams only: send an error event after this many events, then end. */ errorAfterEvents?: number }
  | { kind: 'error'; status: number; type: string; message: string };

export const DEFAULT_ANTHROPIC_REPLY: FakeAnthropicReply = {
  kind: 'message',
  message: { content: [{ type: 'text', text: 'Hello from the fake Anthropic upstream' }], stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 7 } },
};

function fullMessage(message: FakeAnthropicMessage, model: string) {
  return {
    id: 'msg_fake_01',
    type: 'message',
    role: 'assistant',
    model,
    content: message.content,
    stop_reason: message.stop_reason,
    stop_sequence: message.stop_sequence ?? null,
    usage: {
      input_tokens: message.usage?.input_tokens ?? 10,
      output_tokens: message.usage?.output_tokens ?? 5,
      cache_creation_input_tokens: message.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: message.usage?.cache_read_input_tokens ?? 0,
      service_tier: 'standard',
    },
  };
}

function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)].filter((piece) => piece !== '');
}

/** The SSE events Anthropic sends for a message, deltas split the way real streams split them. */
export function anthropicStreamEvents(message: FakeAnthropicMessage, model: string): Array<{ event: string; data: unknown }> {
  const full = fullMessage(message, model);
  const events: Array<{ event: string; data: unknown }> = [];
  const add = (data: { type: string } & Record<string, unknown>) => events.push({ event: data.type, data });
  add({ type: 'message_start', message: { ...full, content: [], stop_reason: null, stop_sequence: null, usage: { ...full.usage, output_tokens: 1 } } });
  add({ type: 'ping' });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      add({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const word of block.text.split(/(?= )/)) add({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: word } });
    } else if (block.type === 'tool_use') {
      add({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const piece of halves(JSON.stringify(block.input))) add({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    } else {
      add({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of halves(block.thinking)) add({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      add({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    }
    add({ type: 'content_block_stop', index });
  });
  add({ type: 'message_delta', delta: { stop_reason: full.stop_reason, stop_sequence: full.stop_sequence }, usage: { output_tokens: full.usage.output_tokens } });
  add({ type: 'message_stop' });
  return events;
}

function reply(request: RecordedRequest, res: ServerResponse, answer: FakeAnthropicReply): void {
  if (answer.kind === 'error') {
    res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
    res.end(JSON.stringify({ type: 'error', error: { type: answer.type, message: answer.message } }));
    return;
  }
  const model = String(request.body?.model ?? 'claude-vertex');
  const streamed = request.body?.stream === true || request.path.includes(':streamRawPredict');
  if (!streamed) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' }).end(JSON.stringify(fullMessage(answer.message, model)));
    return;
  }
  let events = anthropicStreamEvents(answer.message, model);
  if (answer.errorAfterEvents !== undefined) {
    events = [...events.slice(0, answer.errorAfterEvents), { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }];
  }
  writeSse(res, events);
}

export async function startFakeAnthropic(script: (request: RecordedRequest) => FakeAnthropicReply = () => DEFAULT_ANTHROPIC_REPLY): Promise<RecordingServer> {
  return startRecordingServer((request, res) => {
    const path = request.path.split('?')[0]!;
    if (request.method === 'GET' && path.endsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          data: [{ type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }],
          has_more: false,
          first_id: 'claude-sonnet-4-5',
          last_id: 'claude-sonnet-4-5',
        }),
      );
      return;
    }
    if (request.method === 'POST' && (path.endsWith('/v1/messages/count_tokens') || path.endsWith('/models/count-tokens:rawPredict'))) {
      // A fixed count per message, so a test can tell the upstream's count from gw's estimate.
      const messages = Array.isArray(request.body?.messages) ? request.body.messages.length : 0;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 1000 + messages }));
      return;
    }
    if (request.method === 'POST' && (path.endsWith('/v1/messages') || /:(stream)?rawPredict$/i.test(path))) {
      reply(request, res, script(request));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${path}` } }));
  });
}
