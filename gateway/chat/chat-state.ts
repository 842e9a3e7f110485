/** What the chat pipeline knows about one request as its stages run. */
import type { Call } from '../../core/call.js';
import type { ApiError } from '../../core/errors.js';
import type { Principal } from '../../core/auth/principal.js';
import type { CacheStatus } from '../cache/response-cache.js';
import type { HookResults } from '../guardrails/hook-results.js';
import type { GuardrailDefinition } from '../guardrails/definition.js';
import type { Reservation } from '../limits/limits-engine.js';
import type { OrganisationPolicies, RequestFacts } from '../../core/limit-policy-types.js';
import type { Usage } from '../providers/types.js';
import type { ProviderPlan } from '../resolve/provider-plan.js';
import type { RouteReport, Served } from '../routing/route-request.js';
import type { ClientGone } from '../transport/client-gone.js';
import type { GatewayHeaders } from './gateway-headers.js';
import type { GatewayAnswer, GatewayRequest, UpstreamAnswer } from './upstream-answer.js';
import type { Stage } from './run-stages.js';
import type { ChatOrigin } from './run-chat.js';

export interface ChatState {
  readonly call: Call;
  /** Which gateway operation runs the pipeline (the log's endpoint), and what it adds. */
  readonly origin: ChatOrigin;
  readonly principal: Principal;
  /** The body as validated by the spec; stages may replace it (the `@slug/` model prefix removed). */
  request: GatewayRequest;
  readonly stream: boolean;
  /** The client asked for the final usage chunk. */
  readonly includeUsage: boolean;
  /** Log entry id; also the completion id when a provider gives none. */
  readonly id: string;
  /** Fires when the client goes away before the answer is complete. */
  readonly clientGone: ClientGone;
  headers?: GatewayHeaders;
  plan?: ProviderPlan;
  served?: Served<UpstreamAnswer>;
  route?: RouteReport;
  // What the log and the response headers report.
  provider: string | null;
  model: string | null;
  status: number;
  cacheStatus: CacheStatus;
  usage?: Usage;
  completion?: GatewayAnswer;
  error?: ApiError;
  firstByteMs: number | null;
  /** Every guardrail's results so far: logged, and sent as `hook_results`. */
  hookResults?: HookResults;
  /** The guardrails the whole answer goes through, resolved once (guardrail-stages.ts). */
  outputGuardrails?: GuardrailDefinition[];
  /** Rate-limit and budget reservations the request holds until it is settled. */
  limitReservations?: Reservation[];
  /** The policies and request facts the limit stages share, read once. */
  limitInputs?: LimitInputs;
  /** The serving provider's integration pricing multiplier (1 when none). */
  pricingMultiplier?: number;
  /** Milliseconds spent in upstream calls so far, all attempts (the rest of the latency is gw's own). */
  upstreamMs?: number;
}

/** A step of the pipeline. Returning `'done'` ends it early (the answer is ready or written). */
export type ChatStage = Stage<ChatState>;

export interface LimitInputs {
  policies: OrganisationPolicies;
  facts: RequestFacts;
}
