/**
 * One Messages API call (POST /v1/messages): the request translated to chat (chat-request.ts) and
 * run through the chat pipeline (provider selection, configs, limits, guardrails, cache, logs,
 * cost: nothing copied), with the client's body kept for targets on Anthropic's wire
 * (../chat/messages-wire.ts). Their answers go to the client as they came (the stream relayed piece
 * by piece); every other answer is translated back (message-object.ts, event-stream.ts).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Call } from '../../core/call.js';
import { InternalError } from '../../core/errors.js';
import { JsonText } from '../../core/json-text.js';
import type { MessagesOrigin } from '../chat/messages-wire.js';
import { runChat, type ChatOrigin } from '../chat/run-chat.js';
import { SseWriter } from '../chat/sse-writer.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, Usage } from '../providers/types.js';
import { PipelineSink } from '../chat/pipeline-sink.js';
import { chatRequestOf } from './chat-request.js';
import { MessageEventStream } from './event-stream.js';
import { messageOf } from './message-object.js';
import { anthropicErrorEvent } from './stream-failure.js';
import type { MessagesRequest } from './wire.js';

export interface MessagesResult {
  /** Undefined when the answer was streamed. */
  body?: unknown;
  status: number;
  headers: Record<string, string>;
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The Anthropic headers an Anthropic-wire target gets as the client sent them. */
export function anthropicHeaders(headers: IncomingHttpHeaders): MessagesOrigin['headers'] {
  const version = headerOf(headers, 'anthropic-version');
  const beta = headerOf(headers, 'anthropic-beta');
  return { ...(version ? { 'anthropic-version': version } : {}), ...(beta ? { 'anthropic-beta': beta } : {}) };
}

function originOf(call: Call, request: MessagesRequest, relay: MessagesOrigin['relay']): { chat: ChatRequest; origin: ChatOrigin & { messages: MessagesOrigin } } {
  const { chat, untranslatable } = chatRequestOf(request);
  return { chat, origin: { endpoint: 'messages', messages: { body: request as Record<string, unknown>, chat, headers: anthropicHeaders(call.req.headers), untranslatable, relay } } };
}

export async function runMessages(call: Call, request: MessagesRequest): Promise<MessagesResult> {
  if (request.stream === true) return streamMessages(call, request);
  const { chat, origin } = originOf(call, request, () => undefined);
  const result = await runChat(call, chat, origin);
  const completion = result.completion as ChatCompletion & { hook_results?: unknown };
  const answered = origin.messages.answered;
  // The Anthropic-wire target's answer, as it came (a cache hit or another target's is translated).
  if (answered && answered.completion.id === completion.id) {
    const body = completion.hook_results === undefined ? new JsonText(answered.bytes.toString(), answered.bytes) : { ...(JSON.parse(answered.bytes.toString()) as object), hook_results: completion.hook_results };
    return { body, status: result.status, headers: result.headers };
  }
  const body = messageOf(completion);
  return { body: completion.hook_results === undefined ? body : { ...body, hook_results: completion.hook_results }, status: result.status, headers: result.headers };
}

/**
 * The pipeline streams into a sink in place of the client. An Anthropic-wire target's stream is
 * relayed to the client piece by piece as it arrives (the sink's chunks then only feed the
 * pipeline's log); any other stream is written as Anthropic events from the chunks. A refusal
 * before the stream opened is thrown and answered as JSON in Anthropic's error shape.
 */
async function streamMessages(call: Call, request: MessagesRequest): Promise<MessagesResult> {
  const writer = new SseWriter(call.res);
  let relayed = false;
  let relayedError = false;
  let drained: Promise<void> | undefined;
  // Bytes read before the client's stream opened (an output guardrail holding the stream) are not
  // relayed: the client then gets the events made from the pipeline's chunks, as from any provider.
  let missed = false;
  const { chat, origin } = originOf(call, request, (bytes) => {
    if (!call.res.headersSent) missed = true;
    if (missed) return;
    relayed = true;
    if (!relayedError && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('event: error')) relayedError = true;
    if (!writer.open || call.res.write(bytes)) return;
    // The client reads slower than the upstream writes: the pipeline's next chunk waits for it.
    drained = new Promise((resolve) => {
      call.res.once('drain', resolve);
      call.res.once('close', resolve);
    });
  });
  let events: MessageEventStream | undefined;
  let usage: Usage | undefined;
  const sink = new PipelineSink(
    async (chunk: ChatCompletionChunk) => {
      await sink.opened;
      if (chunk.usage) usage = chunk.usage;
      if (relayed) {
        await drained;
        return;
      }
      await events!.push(chunk);
    },
    async (headers) => {
      writer.start(headers);
      // The model as the provider knows it (without a `@slug/` prefix) until the chunks name theirs.
      events = new MessageEventStream(writer, chat.model.replace(/^@[^/]+\//, ''));
    },
  );
  const onClose = () => {
    if (!call.res.writableFinished) sink.stop();
  };
  call.res.once('close', onClose);
  try {
    try {
      await runChat({ ...call, res: sink as unknown as ServerResponse }, chat, origin);
    } catch (error) {
      if (!sink.opened) {
        for (const [name, value] of Object.entries(sink.headers)) if (!call.res.headersSent) call.res.setHeader(name, value);
        throw error;
      }
      await sink.opened;
      if (!relayedError) await writer.event('error', anthropicErrorEvent(error as object));
      return { status: 200, headers: {} };
    }
    await sink.settled();
    if (!sink.opened) throw new InternalError(call.traceId);
    await sink.opened;
    if (sink.streamError) {
      if (!relayedError) await writer.event('error', anthropicErrorEvent(sink.streamError));
    } else if (!relayed) await events!.finish(usage);
    return { status: 200, headers: {} };
  } finally {
    call.res.off('close', onClose);
    // A refusal before the stream opened is answered by the error handler, on a response still unsent.
    if (sink.opened) writer.end();
  }
}
