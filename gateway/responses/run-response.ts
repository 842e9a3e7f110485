/**
 * One Responses API call: the request translated to chat (chat-request.ts) and run through the
 * chat pipeline (runChat: provider selection, configs, limits, guardrails, cache, logs, cost —
 * nothing copied), the answer translated back (response-object.ts, or event-stream.ts for a
 * stream), and with `store` the response kept for GET, input_items and `previous_response_id`.
 */
import type { ServerResponse } from 'node:http';
import { principalOf, type Call } from '../../core/call.js';
import { ApiError, InternalError, ValidationError } from '../../core/errors.js';
import { logRefusedChat } from '../chat/refused-chat-log.js';
import { runChat, type ChatOrigin } from '../chat/run-chat.js';
import { SseWriter } from '../chat/sse-writer.js';
import type { ChatCompletion, ChatCompletionChunk, Usage } from '../providers/types.js';
import { chatRequestOf, conversationOf, inputItemsOf, storedInputItems, type ChatMessage } from './chat-request.js';
import type { ResponsesOrigin } from '../chat/responses-wire.js';
import { ResponseEventStream, type StreamFailure } from './event-stream.js';
import { newItemId } from './ids.js';
import { loadInputFiles, type LoadedFiles } from './input-files.js';
import { nativeBody, nativeResponseOf } from './native-call.js';
import { PipelineSink } from '../chat/pipeline-sink.js';
import { assistantMessageOf, pendingResponse, responseOf, type ResponseFrame } from './response-object.js';
import { socketMemoryOf } from './socket-memory.js';
import { planTools, type ToolPlan } from './tools.js';
import type { CreateResponseRequest, InputItem, ResponseObject } from './wire.js';

const ORIGIN: ChatOrigin = { endpoint: 'responses' };

/** The hosted tools left out, told in a header and in the log row's metadata. */
const OMITTED_HEADER = 'x-gw-omitted-tools';

/**
 * How a call runs in the pipeline. With hosted tools, a target with OpenAI's Responses API gets
 * the call as it is (native: its answer comes back as it came, relayed for a stream); any other
 * target gets the chat translation without them, and the omission is told.
 */
interface Routing {
  origin: ChatOrigin;
  native(): boolean;
  /** Native answer's JSON; undefined otherwise. */
  answered(): Record<string, unknown> | undefined;
  headers(): Record<string, string>;
}

function routingFor(call: Call, turn: Turn, history: readonly ChatMessage[], files: LoadedFiles, relay: ResponsesOrigin['relay']): Routing {
  const { tools } = turn.frame;
  if (tools.omitted.length === 0) return { origin: ORIGIN, native: () => false, answered: () => undefined, headers: () => ({}) };
  const refuse = call.services.config.responsesRefuseHostedTools ? { refuseHosted: { tools: tools.omitted, param: tools.firstHosted ?? 'tools' } } : {};
  const responses: ResponsesOrigin = { body: nativeBody(turn.frame.request, history, turn.items, files), relay, ...refuse };
  const native = () => responses.answered !== undefined;
  const origin: ChatOrigin = {
    ...ORIGIN,
    responses,
    // Read when the log row is made, after the target that served is known.
    get logMetadata() {
      return native() ? undefined : { _omitted_tools: tools.omitted.join(' ') };
    },
  };
  return { origin, native, answered: () => responses.answered, headers: (): Record<string, string> => (native() ? {} : { [OMITTED_HEADER]: tools.omitted.join(', ') }) };
}

export interface ResponseResult {
  /** Undefined when the answer was streamed. */
  body?: ResponseObject;
  status: number;
  headers: Record<string, string>;
}

/** What the store keeps besides the response: the input items and the conversation so far. */
export interface Turn {
  frame: ResponseFrame;
  items: InputItem[];
  conversation: ChatMessage[];
}

async function previousConversation(call: Call, id: string | null | undefined): Promise<ChatMessage[]> {
  if (!id) return [];
  // On a WebSocket, the socket's latest response continues without the store (store: false too).
  const latest = socketMemoryOf(call.req)?.latest;
  if (latest?.id === id) return latest.history;
  const stored = await call.services.store.responses.get(principalOf(call).gatewayWorkspaceId, id);
  if (!stored) throw new ValidationError(`Previous response with id '${id}' not found.`, 'previous_response_id', 'previous_response_not_found');
  return stored.history;
}

async function save(call: Call, turn: Turn, response: ResponseObject): Promise<void> {
  const reply = assistantMessageOf(response.output);
  const memory = socketMemoryOf(call.req);
  if (memory) memory.latest = { id: response.id, history: reply ? [...turn.conversation, reply] : turn.conversation };
  if (!turn.frame.store) return;
  const principal = principalOf(call);
  await call.services.store.responses.insert({
    id: response.id,
    organisation_id: principal.organisationId,
    workspace_id: principal.gatewayWorkspaceId,
    created_at: turn.frame.createdAt,
    body: response,
    input_items: storedInputItems(turn.items),
    history: reply ? [...turn.conversation, reply] : turn.conversation,
  });
}

/**
 * The tools and the conversation the request continues, with its input (files read); a refusal
 * here is logged as the pipeline's would be.
 */
async function prepare(call: Call, request: CreateResponseRequest, items: readonly InputItem[]): Promise<{ tools: ToolPlan; history: ChatMessage[]; conversation: ChatMessage[]; files: LoadedFiles }> {
  try {
    const tools = planTools(request.tools);
    const files = await loadInputFiles(call, items);
    const history = await previousConversation(call, request.previous_response_id);
    const conversation = conversationOf(history, items, files);
    if (conversation.length === 0 && !request.instructions) throw new ValidationError('input is required (or instructions, or a previous_response_id).', 'input');
    return { tools, history, conversation, files };
  } catch (error) {
    if (error instanceof ApiError) logRefusedChat(call, request, error, ORIGIN.endpoint);
    throw error;
  }
}

export async function runResponse(call: Call, request: CreateResponseRequest): Promise<ResponseResult> {
  const items = inputItemsOf(request);
  const { tools, history, conversation, files } = await prepare(call, request, items);
  const turn: Turn = { frame: { id: newItemId('resp'), createdAt: call.startedAt, request, store: request.store !== false, tools }, items, conversation };
  const chat = chatRequestOf(request, conversation, tools);
  if (chat.stream) return streamResponse(call, turn, chat, (relay) => routingFor(call, turn, history, files, relay));
  const routing = routingFor(call, turn, history, files, () => undefined);
  const result = await runChat(call, chat, routing.origin);
  const completion = result.completion as ChatCompletion & { hook_results?: ResponseObject['hook_results'] };
  const native = routing.answered();
  const body = native ? nativeResponseOf(pendingResponse(turn.frame, completion.model), native) : responseOf(turn.frame, completion, call.services.now());
  if (completion.hook_results) body.hook_results = completion.hook_results;
  await save(call, turn, body);
  return { body, status: result.status, headers: { ...result.headers, ...routing.headers() } };
}

/**
 * The pipeline streams into a sink (PipelineSink) in place of the client; the client gets the
 * Responses events as the chunks arrive. A refusal before the pipeline's stream opened (bad key,
 * limits, a guardrail, an upstream error) is thrown and answered as JSON in the error shape.
 */
async function streamResponse(call: Call, turn: Turn, chat: ReturnType<typeof chatRequestOf>, route: (relay: ResponsesOrigin['relay']) => Routing): Promise<ResponseResult> {
  const writer = new SseWriter(call.res);
  let events: ResponseEventStream | undefined;
  let usage: Usage | undefined;
  // A native target's events, relayed in order (each written once the one before it is).
  let relayed: Promise<void> = Promise.resolve();
  // Events read before the client's stream opened (an output guardrail holding the stream) are not
  // relayed: the client then gets the events made from the pipeline's chunks, as for chat.
  let missed = false;
  const pending = () => pendingResponse(turn.frame, chat.model.replace(/^@[^/]+\//, ''));
  const routing = route((event) => {
    // The client's stream opens with the pipeline's (PipelineSink): before that nothing may be written.
    if (!call.res.headersSent) missed = true;
    if (missed) return;
    relayed = relayed.then(() => relayEvent(call, turn, writer, pending, event));
  });
  const relaying = () => routing.native() && !missed;
  const sink = new PipelineSink(
    async (chunk: ChatCompletionChunk) => {
      await sink.opened;
      if (chunk.usage) usage = chunk.usage;
      if (relaying()) await relayed;
      else await events!.push(chunk);
    },
    async (headers) => {
      writer.start({ ...headers, ...routing.headers() });
      if (relaying()) return;
      // The model as the provider knows it (without a `@slug/` prefix) until the chunks name theirs.
      events = new ResponseEventStream(writer, pending(), turn.frame.tools, call.services.now);
      await events.start();
    },
  );
  // The client going away stops the pipeline's call upstream, as it would for a chat stream.
  const onClose = () => {
    if (!call.res.writableFinished) sink.stop();
  };
  call.res.once('close', onClose);
  try {
    try {
      await runChat({ ...call, res: sink as unknown as ServerResponse }, chat, routing.origin);
    } catch (error) {
      if (!sink.opened) {
        for (const [name, value] of Object.entries(sink.headers)) if (!call.res.headersSent) call.res.setHeader(name, value);
        throw error;
      }
      await sink.opened;
      await relayed;
      if (relaying()) await relayedFailure(writer, error as StreamFailure);
      else await events!.fail(error as StreamFailure, usage);
      return { status: 200, headers: {} };
    }
    await sink.settled();
    // Every streamed answer of the pipeline (upstream, cache, mock) opens its stream; a pipeline that did not has failed.
    if (!sink.opened) throw new InternalError(call.traceId);
    await sink.opened;
    await relayed;
    if (relaying()) {
      if (sink.streamError) await relayedFailure(writer, sink.streamError);
    } else if (sink.streamError) await events!.fail(sink.streamError, usage);
    else {
      const response = await events!.closeOutput(usage);
      // Stored before the client hears it is complete, so a retrieve right after finds it.
      await save(call, turn, response);
      await events!.finish(response);
    }
    return { status: 200, headers: {} };
  } finally {
    call.res.off('close', onClose);
    // A refusal before the stream opened is answered by the error handler, on a response still unsent.
    if (sink.opened) writer.end();
  }
}

/**
 * One event of a native target's stream, as the client gets it: its response snapshots as gw's
 * (gw's id, the request's settings), the final one stored before the client hears of it.
 */
async function relayEvent(call: Call, turn: Turn, writer: SseWriter, pending: () => ResponseObject, event: Record<string, unknown>): Promise<void> {
  if (!writer.open || typeof event.type !== 'string') return;
  if (event.response && typeof event.response === 'object') {
    const response = nativeResponseOf(pending(), event.response as Record<string, unknown>);
    if (event.type === 'response.completed' || event.type === 'response.incomplete') await save(call, turn, response);
    await writer.event(event.type, { ...event, response });
    return;
  }
  await writer.event(event.type, event);
}

/** A native stream that failed after it opened, unless the upstream said so itself: an `error` event. */
async function relayedFailure(writer: SseWriter, failure: StreamFailure): Promise<void> {
  const code = failure.code ?? 'server_error';
  const message = failure.message ?? 'The model stream ended early';
  const param = failure.param ?? null;
  await writer.event('error', { type: 'error', code, message, param, error: { type: 'server_error', code, message, param } });
}
