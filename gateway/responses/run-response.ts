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
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, Usage } from '../providers/types.js';
import { chatRequestOf, conversationOf, inputItemsOf, storedInputItems, type ChatMessage } from './chat-request.js';
import type { ResponsesOrigin } from '../chat/responses-wire.js';
import { ResponseEventStream, type StreamFailure } from './event-stream.js';
import { newItemId } from './ids.js';
import { loadInputFiles, type LoadedFiles } from './input-files.js';
import { nativeBody, nativeResponseOf } from './native-call.js';
import { PipelineSink } from '../chat/pipeline-sink.js';
import { assistantMessageOf, finishedResponse, outputItemsOf, pendingResponse, responseOf, type ResponseFrame } from './response-object.js';
import { socketMemoryOf } from './socket-memory.js';
import { chatToolChoice, planTools, type ChatToolCall, type ToolPlan } from './tools.js';
import { prepareGwTools, type GwToolRun, type GwTools } from './gw-tools.js';
import { addUsage, annotated, settleUnapproved, ToolRounds, withoutGwCalls } from './tool-rounds.js';
import type { CreateResponseRequest, InputItem, OutputItem, ResponseObject } from './wire.js';

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

function routingFor(call: Call, turn: Turn, history: readonly ChatMessage[], files: LoadedFiles, relay: ResponsesOrigin['relay'], rounds?: ToolRounds): Routing {
  const { tools } = turn.frame;
  if (tools.hosted.length === 0) return { origin: ORIGIN, native: () => false, answered: () => undefined, headers: () => ({}) };
  // Tools gw runs itself are not omitted: with only those, nothing is refused or told.
  const omits = () => !native() && tools.omitted.length > 0;
  const refuse = call.services.config.responsesRefuseHostedTools && tools.omitted.length ? { refuseHosted: { tools: tools.omitted, param: tools.firstHosted ?? 'tools' } } : {};
  const responses: ResponsesOrigin = { body: nativeBody(turn.frame.request, history, turn.items, files), relay, ...refuse };
  const native = () => responses.answered !== undefined;
  const origin: ChatOrigin = {
    ...ORIGIN,
    responses,
    // Read when the log row is made, after the target that served is known.
    get logMetadata() {
      const metadata: Record<string, string> = {};
      if (omits()) metadata._omitted_tools = tools.omitted.join(' ');
      // The rows of one response's tool rounds (one per round) are found by its id.
      if (rounds && !native()) Object.assign(metadata, { _response_id: turn.frame.id, _tool_round: String(rounds.current) });
      return Object.keys(metadata).length ? metadata : undefined;
    },
  };
  return { origin, native, answered: () => responses.answered, headers: (): Record<string, string> => (omits() ? { [OMITTED_HEADER]: tools.omitted.join(', ') } : {}) };
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

/** `rounds`: the turns of tool rounds gw ran, and the model's last reply (the output holds more than it). */
async function save(call: Call, turn: Turn, response: ResponseObject, rounds?: { messages: ChatMessage[]; reply: ChatMessage | undefined }): Promise<void> {
  const reply = rounds ? rounds.reply : assistantMessageOf(response.output);
  const conversation = rounds ? [...turn.conversation, ...rounds.messages] : turn.conversation;
  const history = reply ? [...conversation, reply] : conversation;
  const memory = socketMemoryOf(call.req);
  if (memory) memory.latest = { id: response.id, history };
  if (!turn.frame.store) return;
  const principal = principalOf(call);
  await call.services.store.responses.insert({
    id: response.id,
    organisation_id: principal.organisationId,
    workspace_id: principal.gatewayWorkspaceId,
    created_at: turn.frame.createdAt,
    body: response,
    input_items: storedInputItems(turn.items),
    history,
  });
}

/**
 * The tools and the conversation the request continues, with its input (files read); a refusal
 * here is logged as the pipeline's would be.
 */
async function prepare(call: Call, request: CreateResponseRequest, items: readonly InputItem[]): Promise<{ tools: ToolPlan; history: ChatMessage[]; conversation: ChatMessage[]; files: LoadedFiles; gw: GwTools | undefined }> {
  let gw: GwTools | undefined;
  try {
    gw = await prepareGwTools(call, request);
    const tools = planTools(request.tools, gw?.types);
    const files = await loadInputFiles(call, items);
    const history = await previousConversation(call, request.previous_response_id);
    const conversation = conversationOf(history, items, files);
    if (conversation.length === 0 && !request.instructions) throw new ValidationError('input is required (or instructions, or a previous_response_id).', 'input');
    return { tools, history, conversation, files, gw };
  } catch (error) {
    await gw?.close();
    if (error instanceof ApiError) logRefusedChat(call, request, error, ORIGIN.endpoint);
    throw error;
  }
}

/** The chat request with gw's own tools (file_search, MCP servers' tools) offered as functions too. */
function withGwTools(chat: ChatRequest, request: CreateResponseRequest, tools: ToolPlan, gw: GwTools | undefined): ChatRequest {
  if (!gw?.chatTools.length) return chat;
  const withTools: ChatRequest = { ...chat, tools: [...(chat.tools ?? []), ...gw.chatTools] };
  if (typeof request.parallel_tool_calls === 'boolean') withTools.parallel_tool_calls = request.parallel_tool_calls;
  if (request.tool_choice != null && withTools.tool_choice === undefined) withTools.tool_choice = chatToolChoice(request.tool_choice, tools);
  return withTools;
}

/** The model's reply as the conversation keeps it: its text and the calls left to the client. */
function replyOf(text: string | null | undefined, calls: readonly ChatToolCall[]): ChatMessage | undefined {
  if (!text && calls.length === 0) return undefined;
  return { role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: [...calls] } : {}) };
}

export async function runResponse(call: Call, request: CreateResponseRequest): Promise<ResponseResult> {
  const items = inputItemsOf(request);
  const { tools, history, conversation, files, gw } = await prepare(call, request, items);
  try {
    if (gw) settleUnapproved(conversation, items, gw);
    const turn: Turn = { frame: { id: newItemId('resp'), createdAt: call.startedAt, request, store: request.store !== false, tools }, items, conversation };
    const chat = withGwTools(chatRequestOf(request, conversation, tools), request, tools, gw);
    const rounds = gw ? new ToolRounds(gw, call.services.config.responsesMaxToolRounds) : undefined;
    if (chat.stream) return await streamResponse(call, turn, chat, rounds, (relay) => routingFor(call, turn, history, files, relay, rounds));
    const routing = routingFor(call, turn, history, files, () => undefined, rounds);
    const output: OutputItem[] = [];
    await rounds?.answerApprovals(conversation, items, async (run) => void output.push(run.item));
    let result = await runChat(call, rounds ? rounds.request(chat) : chat, routing.origin);
    let final: OutputItem[] | undefined;
    while (rounds && !routing.answered()) {
      const completion = result.completion as ChatCompletion;
      rounds.usage = addUsage(rounds.usage, completion.usage);
      const choice = completion.choices[0];
      const ran: OutputItem[] = [];
      const more = await rounds.afterRound(choice?.message.content ?? null, (choice?.message.tool_calls ?? []) as ChatToolCall[], async (run) => void ran.push(run.item));
      const own = choice ? outputItemsOf(withoutGwCalls(choice.message, rounds.gw), choice.finish_reason, tools) : [];
      if (ran.length === 0) {
        final = own;
        break;
      }
      if (choice?.message.content || own.some((item) => item.type !== 'message')) output.push(...own);
      output.push(...ran);
      if (!more) {
        final = [];
        break;
      }
      result = await runChat(call, rounds.request(chat), routing.origin);
    }
    const completion = result.completion as ChatCompletion & { hook_results?: ResponseObject['hook_results'] };
    const native = routing.answered();
    let body: ResponseObject;
    let kept: Parameters<typeof save>[3];
    if (native) body = nativeResponseOf(pendingResponse(turn.frame, completion.model), native);
    else if (rounds && final) {
      const choice = completion.choices[0];
      const items = annotated([...rounds.gw.listItems, ...output, ...final], rounds.gw);
      body = finishedResponse(pendingResponse(turn.frame, completion.model), items, choice?.finish_reason, rounds.usage, call.services.now());
      const reply = rounds.replyKept || !choice ? undefined : replyOf(choice.message.content, (choice.message.tool_calls ?? []) as ChatToolCall[]);
      kept = { messages: rounds.messages, reply };
    } else body = responseOf(turn.frame, completion, call.services.now());
    if (completion.hook_results) body.hook_results = completion.hook_results;
    await save(call, turn, body, kept);
    return { body, status: result.status, headers: { ...result.headers, ...routing.headers() } };
  } finally {
    await gw?.close();
  }
}

/**
 * The pipeline streams into a sink (PipelineSink) in place of the client; the client gets the
 * Responses events as the chunks arrive. A refusal before the pipeline's stream opened (bad key,
 * limits, a guardrail, an upstream error) is thrown and answered as JSON in the error shape.
 */
async function streamResponse(call: Call, turn: Turn, chat: ChatRequest, rounds: ToolRounds | undefined, route: (relay: ResponsesOrigin['relay']) => Routing): Promise<ResponseResult> {
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
  // Approvals the client answered run first; their items open the output.
  const approved: GwToolRun[] = [];
  await rounds?.answerApprovals(turn.conversation, turn.items, async (run) => void approved.push(run));
  // The client's stream opens once, with the first round's pipeline stream; later rounds go on in it.
  let opening: Promise<void> | undefined;
  const open = async (headers: Record<string, string>) => {
    writer.start({ ...headers, ...routing.headers() });
    if (relaying()) return;
    // The model as the provider knows it (without a `@slug/` prefix) until the chunks name theirs.
    events = new ResponseEventStream(writer, pending(), turn.frame.tools, call.services.now);
    await events.start();
    if (!rounds) return;
    const gw = rounds.gw;
    events.hidden = (name) => gw.runs(name);
    events.annotate = (text) => gw.citations(text);
    for (const item of gw.listItems) await events.hostedItem({ item, progress: ['response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed'] });
    for (const run of approved) await events.hostedItem(run);
  };
  let sink: PipelineSink | undefined;
  // The client going away stops the pipeline's call upstream, as it would for a chat stream.
  const onClose = () => {
    if (!call.res.writableFinished) sink?.stop();
  };
  call.res.once('close', onClose);
  try {
    for (;;) {
      let roundUsage: Usage | undefined;
      const current = new PipelineSink(
        async (chunk: ChatCompletionChunk) => {
          await current.opened;
          if (chunk.usage) roundUsage = chunk.usage;
          if (relaying()) await relayed;
          else await events!.push(chunk);
        },
        (headers) => (opening ??= open(headers)),
      );
      sink = current;
      try {
        await runChat({ ...call, res: current as unknown as ServerResponse }, rounds ? rounds.request(chat) : chat, routing.origin);
      } catch (error) {
        if (!opening) {
          for (const [name, value] of Object.entries(current.headers)) if (!call.res.headersSent) call.res.setHeader(name, value);
          throw error;
        }
        await opening;
        await relayed;
        if (relaying()) await relayedFailure(writer, error as StreamFailure);
        else await events!.fail(error as StreamFailure, addUsage(usage, roundUsage));
        return { status: 200, headers: {} };
      }
      await current.settled();
      // Every streamed answer of the pipeline (upstream, cache, mock) opens its stream; a pipeline that did not has failed.
      if (!current.opened) throw new InternalError(call.traceId);
      await current.opened;
      await relayed;
      usage = addUsage(usage, roundUsage);
      if (relaying()) {
        if (current.streamError) await relayedFailure(writer, current.streamError);
        return { status: 200, headers: {} };
      }
      if (current.streamError) {
        await events!.fail(current.streamError, usage);
        return { status: 200, headers: {} };
      }
      let kept: Parameters<typeof save>[3];
      if (rounds) {
        const round = await events!.endRound();
        const more = await rounds.afterRound(round.text, round.calls, (run) => events!.hostedItem(run));
        // A client gone meanwhile: no more rounds for it.
        if (more && call.res.destroyed) return { status: 200, headers: {} };
        if (more) continue;
        const own = round.calls.filter((candidate) => !rounds.gw.runs(candidate.function.name));
        kept = { messages: rounds.messages, reply: rounds.replyKept ? undefined : replyOf(round.text, own) };
      }
      const response = await events!.closeOutput(usage);
      // Stored before the client hears it is complete, so a retrieve right after finds it.
      await save(call, turn, response, kept);
      await events!.finish(response);
      return { status: 200, headers: {} };
    }
  } finally {
    call.res.off('close', onClose);
    // A refusal before the stream opened is answered by the error handler, on a response still unsent.
    if (opening) writer.end();
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
