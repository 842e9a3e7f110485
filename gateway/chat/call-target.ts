/**
 * One attempt at one routing leaf: resolve the leaf's provider, let the adapter build the
 * upstream request, send it with the attempt's timeout, and map the answer. Every failure becomes
 * a routing Outcome (failureFromError) so retries and fallbacks can act on it.
 */
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../../core/errors.js';
import { answerSource, cappedStream, readCappedBody } from '../outbound/answer-cap.js';
import type { Reservation } from '../limits/limits-engine.js';
import type { ChatContext, ChatRequest, ProviderTarget, Usage } from '../providers/types.js';
import { resolveLeafTarget, savedProviderSlugOf } from '../resolve/leaf-target.js';
import { failureFromError, type Outcome } from '../routing/outcome.js';
import type { Leaf } from '../routing/strategy-tree.js';
import { UpstreamAttempt } from '../transport/upstream-attempt.js';
import type { ChatState } from './chat-state.js';
import { guardTargetAnswer, guardTargetRequest } from './chat-guardrails.js';
import { isChatCompletion, usageOf, type UpstreamAnswer } from './upstream-answer.js';
import { wireFor } from './target-wire.js';
import { SpanKind, type Span } from '@opentelemetry/api';
import { formatTraceparent, remoteParentOf } from '../telemetry/trace-context.js';
import { mockCompletion, mockResponseOf } from './mock-completion.js';
import { keepForSettlement, reserveProviderLimits, settleFailedAttempt } from './target-limits.js';

/** An answer read whole; from a custom host (a server someone else names) at most GW_MAX_UPSTREAM_ANSWER_BYTES of it. */
async function readAnswer(response: Dispatcher.ResponseData, target: ProviderTarget, maxBytes: number): Promise<Buffer> {
  if (target.customHost === undefined) return Buffer.from(await response.body.arrayBuffer());
  return readCappedBody(response.body, response.headers, maxBytes, answerSource(target.customHost));
}

function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function lowerCaseHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** `thinking` reaches an adapter only when strict OpenAI compliance is off. */
function forTarget(request: Record<string, unknown>, strict: boolean): ChatRequest {
  if (!strict || request.thinking === undefined) return request as ChatRequest;
  const { thinking: _dropped, ...rest } = request;
  return rest as ChatRequest;
}

/**
 * The attempt's span (tracing on) and the trace context sent upstream: our attempt span as the
 * parent, or with tracing off the caller's own context passed on.
 */
function traceAttempt(state: ChatState, leaf: Leaf): Span | undefined {
  return state.call.trace?.child('upstream attempt', SpanKind.CLIENT, { 'gw.target': leaf.path });
}

function propagate(state: ChatState, span: Span | undefined, headers: Record<string, string>): void {
  if (span) {
    Object.assign(headers, state.call.trace!.propagation(span));
    return;
  }
  // The caller's context as it came (a traceparent, or gw's own trace headers in W3C form).
  const remote = remoteParentOf(state.call.req.headers);
  if (remote) {
    headers.traceparent = formatTraceparent(remote.traceId, remote.spanId, remote.sampled);
    if (remote.traceState !== undefined) headers.tracestate = remote.traceState;
  }
}

export async function callTarget(state: ChatState, leaf: Leaf, request: Record<string, unknown>, timeoutMs: number): Promise<Outcome<UpstreamAnswer>> {
  const { services } = state.call;
  const span = traceAttempt(state, leaf);
  // A stream's attempt (and its span) ends when the stream does, in the respond stage.
  let streaming = false;
  const onEnd = (ms: number) => {
    state.upstreamMs = (state.upstreamMs ?? 0) + ms;
    if (span && streaming) state.call.trace!.endChild(span, state.error ? state.error.status : 200, state.error);
  };
  let attempt: UpstreamAttempt | undefined;
  let upstreamHeaders: Record<string, string> | undefined;
  // This attempt's hold on a saved provider's limits, and what it is priced with when settled.
  let held: Reservation[] = [];
  let priced: { target: ProviderTarget; model: string; usage?: Usage } | undefined;
  try {
    const embeddings = state.origin.endpoint === 'embeddings';
    // A denial here is this target's failure (446): a fallback moves on to the next target.
    if (!embeddings) request = await guardTargetRequest(state, leaf, request);
    const resolved = await resolveLeafTarget({
      settings: leaf.settings,
      model: request.model as string,
      headers: state.call.req.headers,
      forwardHeaderNames: state.headers!.forwardHeaderNames,
      organisationId: state.principal.organisationId,
      workspaceId: state.principal.gatewayWorkspaceId,
      savedResources: services.savedResources,
      outbound: services.outbound,
    });
    const { adapter, guarded } = resolved;
    let target = resolved.target;
    // The Messages door answers thinking as thinking blocks: the adapters' reasoning fields are wanted.
    if (state.origin.messages) target = { ...target, strictOpenAiCompliance: false };
    state.provider = target.provider;
    state.model = request.model as string;
    span?.setAttributes({ 'gw.provider': target.provider, 'gen_ai.request.model': state.model });
    state.pricingMultiplier = target.pricingMultiplier ?? 1;
    // An operation the provider lacks is this target's failure (400): a fallback moves on.
    const wire = wireFor(state.origin, adapter);
    let context: ChatContext = {
      target,
      request: forTarget(request, target.strictOpenAiCompliance !== false),
      stream: state.stream,
      created: Math.floor(state.call.startedAt / 1000),
      id: `chatcmpl-${state.id}`,
    };
    const slug = savedProviderSlugOf(leaf.settings);
    // Before any upstream call; a refusal is this target's failure, so a fallback moves on.
    if (slug !== undefined) held = await reserveProviderLimits(state, slug, target, context.request);
    priced = { target, model: context.request.model };
    const mocked = embeddings ? undefined : mockResponseOf(context.request);
    if (mocked !== undefined) {
      const answer = mockCompletion(context, mocked);
      priced.usage = answer.usage;
      const completion = await guardTargetAnswer(state, leaf, answer);
      keepForSettlement(state, held);
      if (span) state.call.trace!.endChild(span, 200);
      return { ok: true, status: 200, value: { kind: 'json', completion } };
    }
    attempt = new UpstreamAttempt(timeoutMs, state.clientGone, onEnd);
    const send = async (context: ChatContext) => {
      const upstream = await wire.build(context);
      propagate(state, span, upstream.headers);
      return services.upstreams.send(upstream, { provider: target.provider, customHost: target.customHost !== undefined, guarded, signal: attempt!.signal });
    };
    let response = await send(context);
    if (response.statusCode === 401 && target.renewCredentials) {
      // A fetched token the upstream refused (revoked, rotated early): fetch a new one, try once more.
      await response.body.dump();
      context = { ...context, target: await target.renewCredentials() };
      response = await send(context);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      upstreamHeaders = lowerCaseHeaders(response.headers);
      const parsed = adapter.parseError(response.statusCode, parseJson(await readAnswer(response, target, services.config.maxUpstreamAnswerBytes)));
      const retryAfter = upstreamHeaders['retry-after'];
      throw new UpstreamError(response.statusCode, parsed.message, parsed.code ?? 'upstream_error', retryAfter ? { headers: { 'retry-after': retryAfter } } : {});
    }
    if (state.stream) {
      keepForSettlement(state, held);
      streaming = true;
      const body = target.customHost === undefined ? response.body : cappedStream(response.body, services.config.maxUpstreamAnswerBytes, answerSource(target.customHost));
      return { ok: true, status: response.statusCode, value: { kind: 'stream', body, translator: wire.translator(context), attempt } };
    }
    const parsed = wire.read(await readAnswer(response, target, services.config.maxUpstreamAnswerBytes), context);
    const usage = usageOf(parsed);
    priced.usage = usage;
    attempt.dispose();
    const completion = isChatCompletion(parsed) ? await guardTargetAnswer(state, leaf, parsed) : parsed;
    keepForSettlement(state, held);
    if (span) {
      span.setAttributes({ 'gen_ai.usage.input_tokens': usage?.prompt_tokens ?? 0, 'gen_ai.usage.output_tokens': usage?.completion_tokens ?? 0 });
      state.call.trace!.endChild(span, response.statusCode);
    }
    return { ok: true, status: response.statusCode, value: { kind: 'json', completion } };
  } catch (error) {
    attempt?.abort();
    if (priced) await settleFailedAttempt(state, held, priced.target, priced.model, priced.usage);
    const failure = failureFromError(attempt ? attempt.failure(error) : error, upstreamHeaders);
    if (span) state.call.trace!.endChild(span, failure.status, failure.error as { code?: string; message?: string });
    return failure;
  }
}
