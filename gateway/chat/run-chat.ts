/**
 * Runs the chat stages for one request and logs it whatever happens. Returns the completion for
 * the handler to answer with, or undefined when the answer was streamed.
 */
import { timeOrderedId } from '../../store/time-ordered-id.js';
import { ApiError, InternalError } from '../../core/errors.js';
import { principalOf, type Call } from '../../core/call.js';
import { redactedError } from '../../core/request-secrets.js';
import type { CompletionRequest } from '../providers/types.js';
import type { MessagesOrigin } from './messages-wire.js';
import type { ResponsesOrigin } from './responses-wire.js';
import { isChatRequest, type GatewayAnswer, type GatewayRequest } from './upstream-answer.js';
import type { LogEndpoint, PromptRun } from '../../core/request-log.js';
import { ClientGone } from '../transport/client-gone.js';
import type { ChatState } from './chat-state.js';
import { chatLogEntry } from './log-entry.js';
import { servedHeaders } from './respond.js';
import { chatStages } from './stages.js';
import { runStages } from './run-stages.js';
import { logRequest } from '../telemetry/log-request.js';
import { answerBody } from './guardrail-stages.js';
import { settleLimits } from './limit-stages.js';

export interface ChatResult {
  completion?: GatewayAnswer;
  /** 200, or 246 when a monitor-only guardrail failed. */
  status: number;
  headers: Record<string, string>;
}

/** Where a chat request came from, when not from POST /v1/chat/completions. */
export interface ChatOrigin {
  endpoint: LogEndpoint;
  /** The prompt a prompt completion rendered (logged with the row). */
  prompt?: PromptRun;
  /** A saved provider slug used when the request's headers select no provider (a prompt's virtual_key). */
  savedProvider?: string;
  /**
   * POST /v1/completions: the legacy request, sent as it is to providers with a native completions
   * endpoint; the others get the chat request it was translated to (text-completion.ts).
   */
  textCompletion?: CompletionRequest;
  /** POST /v1/messages: the client's body for Anthropic-wire targets, and where their answer goes (messages-wire.ts). */
  messages?: MessagesOrigin;
  /** POST /v1/responses with hosted tools: the Responses body for targets with OpenAI's Responses API (responses-wire.ts). */
  responses?: ResponsesOrigin;
  /** Notes from the door for the log row's metadata (gw's own keys start with `_`, as `_prompt` does). */
  logMetadata?: Record<string, string>;
}

const CHAT: ChatOrigin = { endpoint: 'chat.completions' };

export async function runChat(call: Call, request: GatewayRequest, origin: ChatOrigin = CHAT): Promise<ChatResult> {
  const clientGone = new ClientGone();
  const state: ChatState = {
    call,
    origin,
    principal: principalOf(call),
    request,
    // Embeddings are never streamed, whatever extra fields their body carries.
    stream: isChatRequest(request) && request.stream === true,
    includeUsage: isChatRequest(request) && request.stream === true && request.stream_options?.include_usage === true,
    id: timeOrderedId(call.startedAt),
    clientGone,
    provider: null,
    model: null,
    status: 200,
    cacheStatus: 'DISABLED',
    firstByteMs: null,
  };
  const onClose = () => {
    if (!call.res.writableFinished) clientGone.abort();
  };
  call.res.once('close', onClose);
  try {
    await runStages(chatStages, state);
    return { completion: state.stream ? undefined : answerBody(state), status: state.status, headers: servedHeaders(state) };
  } catch (error) {
    const failure = error instanceof ApiError ? error : new InternalError(call.traceId);
    if (!(error instanceof ApiError)) call.services.logger.error({ err: redactedError(call, error), traceId: call.traceId }, 'chat pipeline failed');
    state.error = failure;
    state.status = failure.status;
    if (!call.res.headersSent) for (const [name, value] of Object.entries(servedHeaders(state))) call.res.setHeader(name, value);
    throw failure;
  } finally {
    call.res.off('close', onClose);
    // Streams included: the respond stage has returned only once the stream ended, with its real usage.
    await settleLimits(state);
    logRequest(call, chatLogEntry(state));
  }
}
