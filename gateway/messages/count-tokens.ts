/**
 * POST /v1/messages/count_tokens. The provider is selected as for a message (a config's first
 * target); one with Anthropic's counter (buildCountTokensRequest) is asked, with the client's body
 * and headers; any other gets gw's estimate (four characters a token over the system, messages
 * and tools), answered with `x-gw-token-count: estimate` so a client can tell. Nothing is logged
 * or charged: nothing is generated.
 */
import type { Call } from '../../core/call.js';
import { principalOf } from '../../core/call.js';
import { UpstreamError } from '../../core/errors.js';
import { readGatewayHeaders } from '../chat/gateway-headers.js';
import { estimatedUsage } from '../limits/request-amounts.js';
import { resolveLeafTarget } from '../resolve/leaf-target.js';
import { resolveProviderPlan } from '../resolve/provider-plan.js';
import { firstLeaf } from '../routing/first-leaf.js';
import { ClientGone } from '../transport/client-gone.js';
import { UpstreamAttempt } from '../transport/upstream-attempt.js';
import { chatRequestOf } from './chat-request.js';
import { anthropicHeaders } from './run-messages.js';
import type { CountTokensRequest, MessagesRequest } from './wire.js';

export interface TokenCountResult {
  body: { input_tokens: number };
  headers: Record<string, string>;
}

function estimate(request: CountTokensRequest): number {
  const { chat } = chatRequestOf({ ...request, max_tokens: 1 } as MessagesRequest);
  const tools = request.tools?.length ? JSON.stringify(request.tools).length : 0;
  return estimatedUsage({ ...chat, max_tokens: undefined }).prompt_tokens + Math.ceil(tools / 4);
}

export async function countTokens(call: Call, request: CountTokensRequest): Promise<TokenCountResult> {
  const { services, req } = call;
  const principal = principalOf(call);
  const tenant = { organisationId: principal.organisationId, workspaceId: principal.gatewayWorkspaceId, savedResources: services.savedResources };
  const plan = await resolveProviderPlan({ ...tenant, headers: req.headers, model: request.model, blockInlineConfig: services.config.blockInlineConfig });
  const settings = firstLeaf(plan.config);
  const override = (settings.override_params as { model?: unknown } | undefined)?.model;
  const model = typeof override === 'string' ? override : (plan.model ?? request.model);
  const { adapter, target, guarded } = await resolveLeafTarget({
    ...tenant,
    settings,
    model,
    headers: req.headers,
    forwardHeaderNames: readGatewayHeaders(req.headers).forwardHeaderNames,
    outbound: services.outbound,
  });
  const { chat } = chatRequestOf({ ...request, model, max_tokens: 1 } as MessagesRequest);
  const context = { target, request: chat, stream: false, created: Math.floor(call.startedAt / 1000), id: 'count_tokens', body: { ...request, model }, headers: anthropicHeaders(req.headers) };
  const upstream = adapter.buildCountTokensRequest ? await adapter.buildCountTokensRequest(context) : undefined;
  if (!upstream) return { body: { input_tokens: estimate(request) }, headers: { 'x-gw-token-count': 'estimate', 'x-gw-provider': target.provider } };

  const attempt = new UpstreamAttempt(services.config.requestTimeoutMs, new ClientGone());
  try {
    const response = await services.upstreams.send(upstream, { provider: target.provider, customHost: target.customHost !== undefined, guarded, signal: attempt.signal });
    const text = await response.body.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text for the error message.
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const parsed = adapter.parseError(response.statusCode, body);
      throw new UpstreamError(response.statusCode, parsed.message, parsed.code ?? 'upstream_error');
    }
    const count = (body as { input_tokens?: unknown; inputTokens?: unknown } | null) ?? {};
    const tokens = typeof count.input_tokens === 'number' ? count.input_tokens : count.inputTokens;
    if (typeof tokens !== 'number') throw new UpstreamError(502, `${target.provider} answered count_tokens without input_tokens`, 'upstream_malformed_response');
    return { body: { input_tokens: tokens }, headers: { 'x-gw-token-count': 'native', 'x-gw-provider': target.provider } };
  } catch (error) {
    throw attempt.failure(error);
  } finally {
    attempt.dispose();
  }
}
