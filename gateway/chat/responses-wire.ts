/**
 * The Responses door's attempt at one target, for a call offering hosted tools (web_search,
 * file_search, ...): a target whose provider serves OpenAI's Responses API (buildResponsesRequest)
 * gets the Responses body itself, hosted tools included, so its host runs them; its answer is read
 * as a chat completion for the pipeline (logs, cost, cache, guardrails) and also handed to the door
 * as it came: the Response object, or each stream event as it arrives. Any other target gets the
 * chat translation, without the hosted tools (the door says which were left out).
 */
import { ValidationError } from '../../core/errors.js';
import { chatCompletionOfResponse, ResponsesStreamTranslator } from '../providers/openai-compatible/responses-api.js';
import type { ChatContext, ProviderAdapter } from '../providers/types.js';
import type { TargetWire } from './target-wire.js';

/** What the Responses door gives the pipeline, and how it hears a native answer. */
export interface ResponsesOrigin {
  /** The Responses body for a native target: the whole input, `store: false`, no `previous_response_id` (gw keeps the conversation). */
  body: Record<string, unknown>;
  /** Each event of a native stream, as it arrives. */
  relay(event: Record<string, unknown>): void;
  /** Set when a native target answered: the upstream's Response object (JSON), or `{}` for a stream. */
  answered?: Record<string, unknown>;
  /** GW_RESPONSES_REFUSE_HOSTED_TOOLS: a target that cannot run them refuses the call (400), and a fallback moves on. */
  refuseHosted?: { tools: readonly string[]; param: string };
}

export function responsesWire(origin: ResponsesOrigin, adapter: ProviderAdapter, chat: TargetWire): TargetWire {
  const build = adapter.buildResponsesRequest;
  if (!build) {
    return {
      ...chat,
      build(context) {
        // An earlier attempt's answer (a fallback's failed native target) is not this one's.
        origin.answered = undefined;
        const refused = origin.refuseHosted;
        if (refused) throw new ValidationError(`${adapter.name} cannot run hosted tools (${refused.tools.join(', ')}) and this gateway refuses to send the call without them`, refused.param, 'unsupported_tool');
        return chat.build(context);
      },
    };
  }
  // The routed model (a config target's, without `@slug/`) and whether this attempt streams.
  const body = (context: ChatContext) => ({ ...origin.body, model: context.request.model, stream: context.stream });
  return {
    build(context) {
      origin.answered = undefined;
      return build.call(adapter, context, body(context));
    },
    read(bytes, context) {
      const response = JSON.parse(bytes.toString()) as Record<string, unknown>;
      origin.answered = response;
      return chatCompletionOfResponse(response, context);
    },
    translator(context) {
      origin.answered = {};
      return new ResponsesStreamTranslator(context, origin.relay);
    },
  };
}
