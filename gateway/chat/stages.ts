/**
 * The chat pipeline, in order (ARCHITECTURE.md "The request path"). Authentication has already
 * run (openapi-backend security). Stages still to come slot in where marked:
 *   read headers -> resolve provider -> rate limits -> usage limits: reserve (limit-stages.ts) ->
 *   input guardrails -> route (cache lookup, strategy tree, retries, upstream call; a target's
 *   own guardrails run in its call) -> output guardrails -> respond (cache store) -> streamed
 *   output guardrails -> guardrail status (guardrail-stages.ts); log and usage settle run in run-chat.ts.
 */
import { assertModelAllowed } from '../../core/auth/allowed-models.js';
import { ApiError, InternalError } from '../../core/errors.js';
import { savedProviderSlugOf } from '../resolve/leaf-target.js';
import { resolveProviderPlan } from '../resolve/provider-plan.js';
import { routeRequest } from '../routing/route-request.js';
import { sleep } from '../routing/retry.js';
import { callTarget } from './call-target.js';
import { embedderFor } from './semantic-embedder.js';
import type { ChatStage } from './chat-state.js';
import { isChatCompletion, usageOf } from './upstream-answer.js';
import { readGatewayHeaders } from './gateway-headers.js';
import { servedHeaders, streamCompletion, streamUpstream } from './respond.js';
import { rateLimits, usageLimitsReserve } from './limit-stages.js';
import { guardrailStatus, inputGuardrails, outputGuardrails, streamedOutputGuardrails } from './guardrail-stages.js';

const readHeaders: ChatStage = {
  name: 'read-headers',
  run(state) {
    state.headers = readGatewayHeaders(state.call.req.headers);
  },
};

const resolveProvider: ChatStage = {
  name: 'resolve-provider',
  async run(state) {
    const { services } = state.call;
    state.plan = await resolveProviderPlan({
      headers: state.call.req.headers,
      model: state.request.model,
      organisationId: state.principal.organisationId,
      workspaceId: state.principal.gatewayWorkspaceId,
      savedResources: services.savedResources,
      blockInlineConfig: services.config.blockInlineConfig,
      workspaceUserKey: state.principal.keyType === 'workspace' && state.principal.subType === 'user',
      fallbackProviderSlug: state.origin.savedProvider,
    });
    if (state.plan.model !== undefined) state.request = { ...state.request, model: state.plan.model };
  },
};

const route: ChatStage = {
  name: 'route',
  async run(state) {
    const { services } = state.call;
    const headers = state.headers!;
    const result = await routeRequest({
      config: state.plan!.config,
      request: state.request as unknown as Record<string, unknown>,
      metadata: headers.metadata,
      tenant: { organisationId: state.principal.organisationId, workspaceId: state.principal.gatewayWorkspaceId },
      cacheNamespace: headers.cacheNamespace,
      operation: state.origin.endpoint === 'embeddings' || state.origin.textCompletion ? state.origin.endpoint : undefined,
      forceRefresh: headers.forceRefresh,
      requestTimeoutMs: headers.requestTimeoutMs,
      // x-gw-request-timeout, when sent, is also each target's timeout unless the config names one.
      defaultTimeoutMs: headers.requestTimeoutMs ?? services.config.requestTimeoutMs,
      admitLeaf: (leaf, request) => assertModelAllowed(state.principal, String(request.model), savedProviderSlugOf(leaf.settings)),
      callTarget: (leaf, request, timeoutMs) => callTarget(state, leaf, request, timeoutMs),
      embedderFor: embedderFor(state),
      cache: services.responseCache,
      random: Math.random,
      sleep,
      now: services.now,
    });
    state.route = result.report;
    state.cacheStatus = result.report.cacheStatus;
    const outcome = result.outcome;
    if (!outcome.ok) throw outcome.error instanceof ApiError ? outcome.error : new InternalError(state.call.traceId);
    state.served = outcome.value;
    // A hit called no provider: the one whose answer was cached is the one that served.
    if (outcome.value.kind === 'cache' && outcome.value.provider) state.provider = outcome.value.provider;
  },
};

const respond: ChatStage = {
  name: 'respond',
  async run(state) {
    const served = state.served!;
    if (served.kind === 'cache') {
      state.completion = served.completion;
      state.usage = usageOf(served.completion);
      if (state.stream && isChatCompletion(served.completion)) await streamCompletion(state, served.completion);
      return;
    }
    const answer = served.answer;
    if (answer.kind === 'json') {
      state.completion = answer.completion;
      state.usage = usageOf(answer.completion);
      void served.store(answer.completion, state.provider);
      // A whole answer to a streamed request (mock_response) is replayed as events, like a cache hit.
      if (state.stream && isChatCompletion(answer.completion)) await streamCompletion(state, answer.completion);
      return;
    }
    await streamUpstream(state, answer, state.cacheStatus === 'MISS' || state.cacheStatus === 'REFRESH' ? served.store : undefined);
  },
};

export const chatStages: readonly ChatStage[] = [
  readHeaders,
  resolveProvider,
  rateLimits,
  usageLimitsReserve,
  inputGuardrails,
  route,
  outputGuardrails,
  respond,
  streamedOutputGuardrails,
  guardrailStatus,
];

export { servedHeaders };
