/**
 * The `/v1/*` pass-through: a call to a path gw has no route of its own for (images, audio,
 * moderations, rerank, fine-tuning, a provider's own paths) goes to the selected provider as it
 * is, over the chat pipeline's machinery: provider selection (headers, or the body's model
 * `@slug/model` as on chat; the config's first target when a config selects it), limits (each
 * call counts one request, settled with the answer's tokens and cost where it reports usage),
 * guardrails (opted-in webhooks only: proxy-guardrails.ts), the address guard on custom hosts,
 * the upstream pool, and one log entry whatever the outcome. The request body is read only as far
 * as its model (proxy-request-body.ts), except where a provider's signature covers it (bedrock's
 * SigV4): that one is read whole first, up to the body limit (413 above it). The answer streams
 * back as it arrives; usage is read from it on the way (answer-usage.ts).
 */
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pipeline as pipelineCallback } from 'node:stream';
import { timeOrderedId } from '../../store/time-ordered-id.js';
import { MAX_BODY_BYTES, readBodyBytes } from '../../core/body.js';
import { ApiError, GuardrailDeniedError, InternalError, ValidationError } from '../../core/errors.js';
import { principalOf, type Call } from '../../core/call.js';
import type { Principal } from '../../core/auth/principal.js';
import { readGatewayHeaders } from '../chat/gateway-headers.js';
import type { HookResults } from '../guardrails/hook-results.js';
import type { Amounts, Reservation } from '../limits/limits-engine.js';
import type { SignedProxyBody } from '../providers/types.js';
import { requestFacts } from '../limits/policy-match.js';
import { resolveLeafTarget, savedProviderSlugOf } from '../resolve/leaf-target.js';
import { assertModelAllowed } from '../../core/auth/allowed-models.js';
import { resolveProviderPlan, selectsProviderByHeader } from '../resolve/provider-plan.js';
import { firstLeaf } from '../routing/first-leaf.js';
import { logRequest } from '../telemetry/log-request.js';
import { ClientGone } from '../transport/client-gone.js';
import { UpstreamAttempt } from '../transport/upstream-attempt.js';
import type { OutboundCall } from '../transport/upstream-client.js';
import { guardProxyRequest } from './proxy-guardrails.js';
import { proxyLogEntry, type ProxyOutcome } from './proxy-log.js';
import { answerHeaders, pathBelow, upstreamBodyHeaders } from './proxy-wire.js';
import { readProxyRequestBody } from './proxy-request-body.js';
import { AnswerUsageReader, type AnswerFacts } from './answer-usage.js';
import { costNanoUsd, priceOf } from '../limits/pricing/cost.js';

const ONE_REQUEST: Amounts = { requests: 1, tokens: 0, cost: 0 };

/** Hands each chunk that passes through it to `see` (byte counts, usage). */
function chunkWatcher(see: (chunk: Buffer) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      see(chunk);
      done(null, chunk);
    },
  });
}

/** How much of a multipart body is held to find its model: all of it (up to the body limit) when the model must pick the provider, a peek otherwise. */
const MODEL_PEEK_BYTES = 64 * 1024;

/** The body of a call signed over it, read whole; the attempt's timeout and the client going away end the wait. */
function readWholeBody(req: IncomingMessage, attempt: UpstreamAttempt): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (attempt.aborted) return reject(attempt.reason);
    attempt.once('abort', () => reject(attempt.reason));
    readBodyBytes(req, MAX_BODY_BYTES).then(resolve, reject);
  });
}

/**
 * The request's limits and the saved provider's, each call counting one request. A refused call
 * keeps what it reserved, as a refused chat call does: it was a request.
 */
async function reserveLimits(call: Call, principal: Principal, metadata: Record<string, string>, slug: string | undefined): Promise<Reservation[]> {
  const { services } = call;
  const apiKeyId = principal.keyId ?? '';
  const workspaceId = principal.gatewayWorkspaceId;
  const policies = await services.limitPolicies.forRequest({ organisationId: principal.organisationId, apiKeyId, workspaceId });
  const facts = requestFacts({ apiKeyId, workspaceId, metadata });
  facts.provider = slug;
  const held = [...(await services.limits.checkRateLimits(policies, facts, ONE_REQUEST)), ...(await services.limits.reserveUsage(policies, facts, ONE_REQUEST))];
  if (slug === undefined) return held;
  const own = await services.limitPolicies.forProvider(principal.organisationId, workspaceId, slug);
  const providerFacts = { provider: slug };
  return [...held, ...(await services.limits.checkRateLimits(own, providerFacts, ONE_REQUEST)), ...(await services.limits.reserveUsage(own, providerFacts, ONE_REQUEST))];
}

/**
 * The provider a pass-through goes to: chosen as for chat, the body's model included (a
 * `@slug/model` names a saved provider); a config's first target serves. Without a provider
 * header the body's model is the only signal: a body without a `@slug/` model finds no route (404).
 */
async function proxyTarget(call: Call, principal: Principal, forwardHeaderNames: readonly string[], bodyModel: string | undefined, path: string) {
  const { services, req } = call;
  if (!selectsProviderByHeader(req.headers) && !bodyModel?.startsWith('@')) {
    throw new ApiError(404, 'route_not_found', `No route for ${(req.method ?? 'GET').toUpperCase()} /v1${path.split('?', 1)[0]!}`, 'not_found_error');
  }
  const tenant = { organisationId: principal.organisationId, workspaceId: principal.gatewayWorkspaceId, savedResources: services.savedResources };
  const plan = await resolveProviderPlan({ ...tenant, headers: req.headers, model: bodyModel ?? '', blockInlineConfig: services.config.blockInlineConfig });
  const settings = firstLeaf(plan.config);
  const model = plan.model ?? bodyModel ?? '';
  // A call naming no model (a file list, say) uses none; one that does is held to the key's list.
  if (model) assertModelAllowed(principal, model, savedProviderSlugOf(settings));
  const leaf = await resolveLeafTarget({ ...tenant, settings, model, headers: req.headers, forwardHeaderNames, outbound: services.outbound });
  return { plan, settings, leaf };
}

/** The answer's usage and model, priced, for the log; the budgets settled with it. */
async function settleUsage(call: Call, held: Reservation[], outcome: ProxyOutcome, facts: AnswerFacts, pricingMultiplier: number): Promise<void> {
  outcome.model ??= facts.model ?? null;
  if (!facts.usage) return;
  outcome.usage = facts.usage;
  const price = outcome.provider && outcome.model ? priceOf(outcome.provider, outcome.model) : undefined;
  outcome.costNanoUsd = costNanoUsd(price, facts.usage, pricingMultiplier);
  outcome.unpriced = price === undefined;
  if (held.length > 0) await call.services.limits.settle(held, { requests: 1, tokens: facts.usage.total_tokens, cost: outcome.costNanoUsd, unpriced: outcome.unpriced });
}

/** `prefix` is where the pass-through starts (`/v1/`); what follows it is the provider's path. */
export async function runProxy(call: Call, prefix: string): Promise<void> {
  const { services, req, res } = call;
  const principal = principalOf(call);
  const method = (req.method ?? 'GET').toUpperCase();
  const outcome: ProxyOutcome = {
    id: timeOrderedId(call.startedAt),
    method,
    path: (req.url ?? '/').slice(prefix.length - 1),
    metadata: {},
    configId: null,
    provider: null,
    model: null,
    status: 200,
    firstByteMs: null,
    requestBytes: 0,
    responseBytes: 0,
    responseContentType: null,
    upstreamMs: 0,
  };
  const clientGone = new ClientGone();
  const onClose = () => {
    if (!res.writableFinished) clientGone.abort();
  };
  res.once('close', onClose);
  let attempt: UpstreamAttempt | undefined;
  let body: Readable | undefined;
  try {
    outcome.path = pathBelow(prefix, req.url ?? '/');
    const headers = readGatewayHeaders(req.headers);
    outcome.metadata = headers.metadata;
    const requestBody = await readProxyRequestBody(req, selectsProviderByHeader(req.headers) ? MODEL_PEEK_BYTES : MAX_BODY_BYTES);
    const { plan, settings, leaf } = await proxyTarget(call, principal, headers.forwardHeaderNames, requestBody.model, outcome.path);
    const { adapter, target, guarded } = leaf;
    // The model named a saved provider: upstream gets it without the `@slug/` prefix.
    if (plan.model !== undefined) requestBody.withModel(plan.model);
    outcome.configId = plan.configId;
    outcome.provider = target.provider;
    outcome.model = plan.model ?? requestBody.model ?? null;
    res.setHeader('x-gw-provider', target.provider);
    if (!adapter.buildProxyRequest) {
      throw new ValidationError(`${adapter.name} has no pass-through; use the routes gw serves for it`, 'x-gw-provider', 'pass_through_unsupported');
    }
    const held = await reserveLimits(call, principal, headers.metadata, savedProviderSlugOf(settings));
    outcome.hookResults = await guardProxyRequest({ call, principal, configGuardrails: plan.config.input_guardrails, metadata: headers.metadata, method, path: outcome.path });

    const configTimeout = typeof settings.request_timeout === 'number' ? settings.request_timeout : undefined;
    attempt = new UpstreamAttempt(headers.requestTimeoutMs ?? configTimeout ?? services.config.requestTimeoutMs, clientGone, (ms) => (outcome.upstreamMs += ms));
    const { 'content-length': declaredLength, ...bodyHeaders } = upstreamBodyHeaders(req.headers);
    let signed: SignedProxyBody | undefined;
    let sent: Buffer | Readable | undefined;
    if (adapter.proxySignsBody) {
      const whole = await requestBody.whole((rest) => readWholeBody(rest, attempt!));
      outcome.requestBytes = whole.length;
      // The transport sets the length of a body it sends whole.
      signed = { method, headers: bodyHeaders, body: whole };
      if (whole.length > 0) sent = whole;
    } else {
      const length = requestBody.contentLength(declaredLength);
      if (length !== undefined) bodyHeaders['content-length'] = length;
      sent = requestBody.upstream();
      if (Buffer.isBuffer(sent)) outcome.requestBytes = sent.length;
      else if (sent) {
        const counted = chunkWatcher((chunk) => (outcome.requestBytes += chunk.length));
        // A client that breaks off its upload fails the body, and so the upstream call.
        pipelineCallback(sent, counted, () => undefined);
        body = counted;
        sent = counted;
      }
    }
    const upstream = await adapter.buildProxyRequest(target, { path: outcome.path, signed });
    const response = await services.upstreams.send(
      { method: method as OutboundCall['method'], url: upstream.url, headers: { ...bodyHeaders, ...upstream.headers }, body: sent },
      { provider: target.provider, customHost: target.customHost !== undefined, guarded, signal: attempt.signal },
    );
    outcome.status = response.statusCode;
    const contentType = response.headers['content-type'];
    outcome.responseContentType = typeof contentType === 'string' ? contentType : null;
    res.writeHead(response.statusCode, answerHeaders(response.headers));
    outcome.firstByteMs = services.now() - call.startedAt;
    const usage = response.statusCode < 300 ? AnswerUsageReader.for(outcome.path, response.headers) : undefined;
    await pipeline(
      response.body,
      chunkWatcher((chunk) => {
        outcome.responseBytes += chunk.length;
        usage?.write(chunk);
      }),
      res,
    );
    attempt.dispose();
    outcome.model ??= requestBody.model ?? null;
    if (usage) await settleUsage(call, held, outcome, usage.facts, target.pricingMultiplier ?? 1);
  } catch (error) {
    attempt?.abort();
    // An upload the upstream never took is dropped, not left paused (nor half read for its model).
    if (body) body.destroy();
    else req.resume();
    const failure = attempt ? attempt.failure(error) : error instanceof ApiError ? error : new InternalError(call.traceId);
    if (!(error instanceof ApiError) && !attempt) services.logger.error({ err: error instanceof Error ? error.message : String(error), traceId: call.traceId }, 'pass-through failed');
    outcome.error = failure;
    if (failure instanceof GuardrailDeniedError) outcome.hookResults = failure.hookResults as HookResults;
    // Once the answer has started, its status is what the client got.
    if (!res.headersSent || failure.status === 499) outcome.status = failure.status;
    throw failure;
  } finally {
    res.off('close', onClose);
    logRequest(call, proxyLogEntry(call, principal, outcome));
  }
}
