/**
 * A chat call refused before the pipeline ran (the spec rejected its body, or the key lacks the
 * scope) is still a gateway request of a known caller: it is logged with its status and error,
 * like one the pipeline failed. Other operations that run the chat pipeline (Responses) log
 * their refusals here too, under their own endpoint.
 */
import { timeOrderedId } from '../../store/time-ordered-id.js';
import { ClientGone } from '../transport/client-gone.js';
import type { Call } from '../../core/call.js';
import type { ApiError } from '../../core/errors.js';
import type { ChatRequest } from '../providers/types.js';
import type { LogEndpoint } from '../../core/request-log.js';
import type { ChatState } from './chat-state.js';
import { chatLogEntry } from './log-entry.js';
import { logRequest } from '../telemetry/log-request.js';

export function logRefusedChat(call: Call, body: unknown, error: ApiError, endpoint: LogEndpoint = 'chat.completions'): void {
  if (!call.principal) return; // No caller, no organisation to log it under.
  const request = (body !== null && typeof body === 'object' ? body : {}) as ChatRequest;
  const state: ChatState = {
    call,
    origin: { endpoint },
    principal: call.principal,
    request,
    stream: request.stream === true,
    includeUsage: false,
    id: timeOrderedId(call.startedAt),
    clientGone: new ClientGone(),
    provider: null,
    model: typeof request.model === 'string' ? request.model : null,
    status: error.status,
    cacheStatus: 'DISABLED',
    firstByteMs: null,
    error,
  };
  logRequest(call, chatLogEntry(state));
}
