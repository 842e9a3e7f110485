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
import { ResponseEventStream } from './event-stream.js';
import { newItemId } from './ids.js';
import { loadInputFiles } from './input-files.js';
import { PipelineSink } from '../chat/pipeline-sink.js';
import { assistantMessageOf, pendingResponse, responseOf, type ResponseFrame } from './response-object.js';
import { planTools, type ToolPlan } from './tools.js';
import type { CreateResponseRequest, InputItem, ResponseObject } from './wire.js';

const ORIGIN: ChatOrigin = { endpoint: 'responses' };

/** The hosted tools left out, told in a header and in the log row's metadata. */
const OMITTED_HEADER = 'x-gw-omitted-tools';

function originFor(tools: ToolPlan): ChatOrigin {
  return tools.omitted.length ? { ...ORIGIN, logMetadata: { _omitted_tools: tools.omitted.join(',') } } : ORIGIN;
}

function omittedHeaders(tools: ToolPlan): Record<string, string> {
  return tools.omitted.length ? { [OMITTED_HEADER]: tools.omitted.join(', ') } : {};
}

export interface ResponseResult {
  /** Undefined when the answer was streamed. */
  body?: ResponseObject;
  status: number;
  headers: Record<string, string>;
}

/** What the store keeps besides the response: the input items and the conversation so far. */
interface Turn {
  frame: ResponseFrame;
  items: InputItem[];
  conversation: ChatMessage[];
}

async function previousConversation(call: Call, id: string | null | undefined): Promise<ChatMessage[]> {
  if (!id) return [];
  const stored = await call.services.store.responses.get(principalOf(call).gatewayWorkspaceId, id);
  if (!stored) throw new ValidationError(`Previous response with id '${id}' not found.`, 'previous_response_id', 'previous_response_not_found');
  return stored.history;
}

async function save(call: Call, turn: Turn, response: ResponseObject): Promise<void> {
  if (!turn.frame.store) return;
  const principal = principalOf(call);
  const reply = assistantMessageOf(response.output);
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
async function prepare(call: Call, request: CreateResponseRequest, items: readonly InputItem[]): Promise<{ tools: ToolPlan; conversation: ChatMessage[] }> {
  try {
    const tools = planTools(request.tools, call.services.config.responsesRefuseHostedTools);
    const files = await loadInputFiles(call, items);
    const conversation = conversationOf(await previousConversation(call, request.previous_response_id), items, files);
    if (conversation.length === 0 && !request.instructions) throw new ValidationError('input is required (or instructions, or a previous_response_id).', 'input');
    return { tools, conversation };
  } catch (error) {
    if (error instanceof ApiError) logRefusedChat(call, request, error, ORIGIN.endpoint);
    throw error;
  }
}

export async function runResponse(call: Call, request: CreateResponseRequest): Promise<ResponseResult> {
  const items = inputItemsOf(request);
  const { tools, conversation } = await prepare(call, request, items);
  const turn: Turn = { frame: { id: newItemId('resp'), createdAt: call.startedAt, request, store: request.store !== false, tools }, items, conversation };
  const chat = chatRequestOf(request, conversation, tools);
  if (chat.stream) return streamResponse(call, turn, chat);
  const result = await runChat(call, chat, originFor(tools));
  const completion = result.completion as ChatCompletion & { hook_results?: ResponseObject['hook_results'] };
  const body = responseOf(turn.frame, completion, call.services.now());
  if (completion.hook_results) body.hook_results = completion.hook_results;
  await save(call, turn, body);
  return { body, status: result.status, headers: { ...result.headers, ...omittedHeaders(tools) } };
}

/**
 * The pipeline streams into a sink (PipelineSink) in place of the client; the client gets the
 * Responses events as the chunks arrive. A refusal before the pipeline's stream opened (bad key,
 * limits, a guardrail, an upstream error) is thrown and answered as JSON in the error shape.
 */
async function streamResponse(call: Call, turn: Turn, chat: ReturnType<typeof chatRequestOf>): Promise<ResponseResult> {
  const writer = new SseWriter(call.res);
  let events: ResponseEventStream | undefined;
  let usage: Usage | undefined;
  const sink = new PipelineSink(
    async (chunk: ChatCompletionChunk) => {
      await sink.opened;
      if (chunk.usage) usage = chunk.usage;
      await events!.push(chunk);
    },
    async (headers) => {
      writer.start({ ...headers, ...omittedHeaders(turn.frame.tools) });
      // The model as the provider knows it (without a `@slug/` prefix) until the chunks name theirs.
      events = new ResponseEventStream(writer, pendingResponse(turn.frame, chat.model.replace(/^@[^/]+\//, '')), turn.frame.tools, call.services.now);
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
      await runChat({ ...call, res: sink as unknown as ServerResponse }, chat, originFor(turn.frame.tools));
    } catch (error) {
      if (!sink.opened) {
        for (const [name, value] of Object.entries(sink.headers)) if (!call.res.headersSent) call.res.setHeader(name, value);
        throw error;
      }
      await sink.opened;
      await events!.fail(error as { code?: string; message?: string }, usage);
      return { status: 200, headers: {} };
    }
    await sink.settled();
    // Every streamed answer of the pipeline (upstream, cache, mock) opens its stream; a pipeline that did not has failed.
    if (!sink.opened) throw new InternalError(call.traceId);
    await sink.opened;
    if (sink.streamError) await events!.fail(sink.streamError, usage);
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
