/**
 * The `/v1/*` pass-through: a call to a path gw has no route of its own for (images, audio,
 * moderations, rerank, fine-tuning, a provider's own paths) goes to the selected provider as it
 * is, over the chat pipeline's machinery: provider selection (the config's first target when a
 * config selects it), limits (each call counts one request; tokens are not counted), guardrails
 * (opted-in webhooks only: proxy-guardrails.ts), the address guard on custom hosts, the upstream
 * pool, and one log entry whatever the outcome. Both bodies are piped as they arrive, never buffered,
 * except the request body of a provider whose signature covers it (bedrock's SigV4): that one is
 * read whole first, up to the body limit (413 above it). The answer streams back either way.
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
import { resolveProviderPlan } from '../resolve/provider-plan.js';
import { firstLeaf } from '../routing/first-leaf.js';
import { logRequest } from '../telemetry/log-request.js';
import { ClientGone } from '../transport/client-gone.js';
import { UpstreamAttempt } from '../transport/upstream-attempt.js';
import type { OutboundCall } from '../transport/upstream-client.js';
import { guardProxyRequest } from './proxy-guardrails.js';
import { proxyLogEntry, type ProxyOutcome } from './proxy-log.js';
import { answerHeaders, pathBelow, upstreamBodyHeaders } from './proxy-wire.js';

const ONE_REQUEST: Amounts = { requests: 1, tokens: 0, cost: 0 };

/** Counts the bytes that pass through it. */
function byteCounter(count: (bytes: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      count(chunk.length);
      done(null, chunk);
    },
  });
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

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

/** The provider a pass-through goes to: chosen as for chat, without a model; a config's first target serves. */
async function proxyTarget(call: Call, principal: Principal, forwardHeaderNames: readonly string[]) {
  const { services, req } = call;
  const tenant = { organisationId: principal.organisationId, workspaceId: principal.gatewayWorkspaceId, savedResources: services.savedResources };
  const plan = await resolveProviderPlan({ ...tenant, headers: req.headers, model: '', blockInlineConfig: services.config.blockInlineConfig });
  const settings = firstLeaf(plan.config);
  const leaf = await resolveLeafTarget({ ...tenant, settings, model: '', headers: req.headers, forwardHeaderNames, trustedHosts: services.config.trustedCustomHosts });
  return { plan, settings, leaf };
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
    const { plan, settings, leaf } = await proxyTarget(call, principal, headers.forwardHeaderNames);
    const { adapter, target, guarded } = leaf;
    outcome.configId = plan.configId;
    outcome.provider = target.provider;
    res.setHeader('x-gw-provider', target.provider);
    if (!adapter.buildProxyRequest) {
      throw new ValidationError(`${adapter.name} has no pass-through; use the routes gw serves for it`, 'x-gw-provider', 'pass_through_unsupported');
    }
    await reserveLimits(call, principal, headers.metadata, savedProviderSlugOf(settings));
    outcome.hookResults = await guardProxyRequest({ call, principal, configGuardrails: plan.config.input_guardrails, metadata: headers.metadata, method, path: outcome.path });

    const configTimeout = typeof settings.request_timeout === 'number' ? settings.request_timeout : undefined;
    attempt = new UpstreamAttempt(headers.requestTimeoutMs ?? configTimeout ?? services.config.requestTimeoutMs, clientGone, (ms) => (outcome.upstreamMs += ms));
    const bodyHeaders = upstreamBodyHeaders(req.headers);
    let signed: SignedProxyBody | undefined;
    if (adapter.proxySignsBody) {
      const whole = await readWholeBody(req, attempt);
      outcome.requestBytes = whole.length;
      // The transport sets the length of a body it sends whole.
      const { 'content-length': _length, ...headers } = bodyHeaders;
      signed = { method, headers, body: whole };
    }
    const upstream = await adapter.buildProxyRequest(target, { path: outcome.path, signed });
    if (!signed && hasBody(req)) {
      const counted = byteCounter((bytes) => (outcome.requestBytes += bytes));
      // A client that breaks off its upload fails the body, and so the upstream call.
      pipelineCallback(req, counted, () => undefined);
      body = counted;
    }
    const response = await services.upstreams.send(
      { method: method as OutboundCall['method'], url: upstream.url, headers: { ...bodyHeaders, ...upstream.headers }, body: signed?.body.length ? signed.body : body },
      { provider: target.provider, customHost: target.customHost !== undefined, guarded, signal: attempt.signal },
    );
    outcome.status = response.statusCode;
    const contentType = response.headers['content-type'];
    outcome.responseContentType = typeof contentType === 'string' ? contentType : null;
    res.writeHead(response.statusCode, answerHeaders(response.headers));
    outcome.firstByteMs = services.now() - call.startedAt;
    await pipeline(response.body, byteCounter((bytes) => (outcome.responseBytes += bytes)), res);
    attempt.dispose();
  } catch (error) {
    attempt?.abort();
    // An upload the upstream never took is dropped, not left paused.
    body?.destroy();
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
