/**
 * The A2A door at `{base}/a2a/{slug}`: one JSON-RPC request in either generation, checked (known
 * agent, allowed skill, `agents` rate limits, push-notification URLs through the outbound guard,
 * input guardrails), sent to the agent in its own generation and binding (JSON-RPC, or HTTP+JSON
 * for an agent offering only that: rest-upstream.ts) with the integration's credential,
 * and answered in the caller's: JSON for the plain methods, SSE for the streaming ones with each
 * event written as it arrives. Every call is logged, answered or refused.
 */
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import { ApiError } from '../../core/errors.js';
import type { AgentIntegrationRecord } from '../../store/repositories/agent-integrations.js';
import { readGatewayHeaders } from '../chat/gateway-headers.js';
import { answerSource, cappedStream, readCappedBody } from '../outbound/answer-cap.js';
import { recordA2aCall, type A2aCall, type A2aOutcome } from './a2a-call.js';
import { checkAgentRateLimits, guardTexts } from './a2a-policy.js';
import { resolveA2aTarget, type A2aTarget } from './a2a-target.js';
import { agentEndpoint, type AgentEndpoint } from './agent-endpoint.js';
import type { PooledAnswer } from '../outbound/pooled-http.js';
import { jsonRpcBinding, type A2aBinding } from './binding.js';
import { connectionFailure } from '../outbound/guarded-fetch.js';
import { pushUrlsOf, paramsTo, resultTo, taskIdsOf, taskStateOf } from './bridge.js';
import { restAgentCall, restAnswer, restEvent } from './rest-upstream.js';
import { gatewayCard } from './gateway-card.js';
import { agentGatewayUrl } from './gateway-url.js';
import {
  A2A_VERSION_HEADER,
  callerVersion,
  canonicalMethod,
  isKnownMethod,
  isPushConfigSet,
  isSendingMethod,
  isStreamingMethod,
  isUnsupportedVersion,
  methodIn,
  VERSION_NOT_SUPPORTED,
  type A2aVersion,
} from './protocol.js';
import { A2aRefusal, RPC, rpcError, sendRefusal, type RpcId } from './rpc-errors.js';
import { sseData } from './sse-events.js';

type Json = Record<string, unknown>;

export interface RpcRequest {
  id: RpcId;
  method: string;
  params: unknown;
}

/** How the outbound guard names a refused agent URL (a 400 the door answers as a 502). */
const AGENT_URL = { code: 'agent_url_refused', source: 'The agent URL' };
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const header = (call: Call, name: string) => {
  const value = call.req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The request, or the Invalid Request refusal: A2A sends one JSON-RPC 2.0 request per HTTP request. */
function parseRequest(body: unknown): RpcRequest {
  const id = isObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
  if (!isObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || body.method === '') {
    throw Object.assign(new A2aRefusal(400, RPC.invalidRequest, 'Invalid Request: the A2A door takes one JSON-RPC 2.0 request ("jsonrpc": "2.0" and a "method")', { type: 'invalid_request_error' }), { id });
  }
  if (body.params !== undefined && !isObject(body.params)) {
    throw Object.assign(new A2aRefusal(400, RPC.invalidParams, `Invalid params for ${body.method}: params must be an object`, { type: 'invalid_request_error' }), { id });
  }
  return { id, method: body.method, params: body.params ?? {} };
}

/** The skill a call names: `metadata.skill` of the params, else of the message. */
function skillOf(params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  const holders = [params.metadata, isObject(params.message) ? params.message.metadata : undefined];
  for (const holder of holders) if (isObject(holder) && typeof holder.skill === 'string') return holder.skill;
  return undefined;
}

function contextFor(call: Call, principal: Principal, target: A2aTarget, request: RpcRequest, endpoint: AgentEndpoint): A2aCall {
  const caller = callerVersion(header(call, A2A_VERSION_HEADER), request.method);
  const agentVersion = endpoint.version;
  return {
    call,
    principal,
    target,
    metadata: readGatewayHeaders(call.req.headers).metadata,
    method: request.method,
    canonical: canonicalMethod(request.method),
    callerVersion: caller,
    agentVersion: agentVersion ?? caller,
    agentBinding: endpoint.binding,
    skill: skillOf(request.params),
    startedAt: call.startedAt,
  };
}

/** What gw checks before the agent sees anything; throws the refusal. */
async function admit(context: A2aCall, request: RpcRequest, outcome: A2aOutcome): Promise<void> {
  const { integration } = context.target;
  if (context.skill !== undefined && integration.allowed_skills !== null && !integration.allowed_skills.includes(context.skill)) {
    throw new A2aRefusal(400, RPC.invalidParams, `Skill ${context.skill} is not offered through gw by agent ${integration.slug}`, { type: 'invalid_request_error', code: 'a2a_skill_not_allowed' });
  }
  if (isKnownMethod(request.method) && !methodIn(request.method, context.agentVersion)) {
    throw new A2aRefusal(400, RPC.unsupportedOperation, `${request.method} has no counterpart in A2A ${context.agentVersion}, the version agent ${integration.slug} speaks`, { type: 'invalid_request_error', code: 'a2a_unsupported_operation' });
  }
  try {
    await checkAgentRateLimits(context);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 429) throw error;
    throw new A2aRefusal(429, RPC.rateLimited, error.message, { type: error.type, code: error.code, status: 429 }, error.headers);
  }
  if (isPushConfigSet(context.canonical) || isSendingMethod(context.canonical)) {
    for (const url of pushUrlsOf(request.params)) {
      try {
        await context.call.services.outbound.vet(url, { param: 'params.pushNotificationConfig.url', code: 'push_url_refused', source: 'the push-notification URL' });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw new A2aRefusal(400, RPC.invalidParams, error.message, { type: error.type, code: error.code });
      }
    }
  }
  if (isSendingMethod(context.canonical)) {
    const verdict = await guardTexts(context, 'input', isObject(request.params) ? request.params.message : undefined);
    outcome.guardrails.push(...verdict.results);
    if (verdict.denied) throw new A2aRefusal(446, RPC.guardrailDenied, verdict.denied, { type: 'guardrail_error', code: 'guardrail_denied', hook_results: verdict.results });
  }
}

function agentRequestHeaders(context: A2aCall, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    ...(context.agentVersion === '1.0' ? { 'A2A-Version': '1.0' } : {}),
  };
  // Extensions the caller activates travel on; 1.0 dropped 0.3's X- prefix.
  const extensions = header(context.call, 'a2a-extensions') ?? header(context.call, 'x-a2a-extensions');
  if (extensions) headers[context.agentVersion === '1.0' ? 'A2A-Extensions' : 'X-A2A-Extensions'] = extensions;
  return headers;
}

/**
 * The agent's endpoint read from the card, kept per record object: the agent directory hands out a
 * new one after any change to the integration.
 */
const endpoints = new WeakMap<AgentIntegrationRecord, AgentEndpoint>();

function endpointOf(integration: AgentIntegrationRecord): AgentEndpoint {
  let endpoint = endpoints.get(integration);
  if (!endpoint) {
    endpoint = agentEndpoint(integration.agent_card, integration.url);
    endpoints.set(integration, endpoint);
  }
  return endpoint;
}

/** An agent's JSON-RPC error, in the caller's generation: 1.0 details (an array) mean nothing to a 0.3 client. */
function bridgeError(error: unknown, to: A2aVersion): unknown {
  if (!isObject(error) || to === '1.0' || !Array.isArray(error.data)) return error;
  const { data: _details, ...rest } = error;
  return rest;
}

/** One answer from the agent, in the caller's generation, with the output guardrails' verdict; throws the refusal on a deny. */
async function answerFor(context: A2aCall, id: RpcId, answer: unknown, outcome: A2aOutcome): Promise<unknown> {
  if (!isObject(answer)) return answer;
  if ('error' in answer) {
    const error = bridgeError(answer.error, context.callerVersion) as Json;
    outcome.error = { code: `a2a_error_${String(error?.code)}`, message: String(error?.message ?? ''), type: 'upstream_error' };
    return { jsonrpc: '2.0', id, error };
  }
  let result = answer.result;
  // An HTTP+JSON agent's results arrive as 1.0 JSON whatever its generation (rest-upstream.ts).
  const resultVersion = context.agentBinding === 'rest' ? '1.0' : context.agentVersion;
  if (context.canonical === 'GetExtendedAgentCard' && isObject(result)) {
    result = gatewayCard({ ...context.target.integration, agent_card: result }, agentGatewayUrl(context.call.services.config.publicUrl, context.target.integration.slug));
  } else if (context.callerVersion !== resultVersion) {
    result = resultTo(context.canonical, result, context.callerVersion);
  }
  outcome.taskState = taskStateOf(result) ?? outcome.taskState;
  const ids = taskIdsOf(result);
  outcome.taskId = ids.taskId ?? outcome.taskId;
  outcome.contextId = ids.contextId ?? outcome.contextId;
  const verdict = await guardTexts(context, 'output', result);
  outcome.guardrails.push(...verdict.results);
  if (verdict.denied) throw new A2aRefusal(446, RPC.guardrailDenied, verdict.denied, { type: 'guardrail_error', code: 'guardrail_denied', hook_results: verdict.results });
  return { jsonrpc: '2.0', id, result };
}

function upstreamRefusal(context: A2aCall, error: unknown, timedOut: boolean): A2aRefusal {
  const slug = context.target.integration.slug;
  if (timedOut) return new A2aRefusal(504, RPC.internal, `Agent ${slug} did not answer within ${context.call.services.config.requestTimeoutMs} ms (REQUEST_TIMEOUT)`, { type: 'timeout_error', code: 'request_timeout' });
  if (error instanceof ApiError) return new A2aRefusal(error.status >= 500 ? error.status : 502, RPC.internal, error.message, { type: error.type, code: error.code });
  return new A2aRefusal(502, RPC.internal, `Agent ${slug} is unreachable or closed the connection: ${connectionFailure(error)}`, { type: 'upstream_error', code: 'a2a_upstream_error' });
}

/**
 * Time bound: the wait for the answer (and, for a plain answer, its body) is REQUEST_TIMEOUT; a
 * stream may run longer but may not stay silent longer than that between two chunks.
 */
function watchdog(timeoutMs: number, abort: AbortController): { touch(): void; stop(): void; fired: () => boolean } {
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      fired = true;
      abort.abort();
    }, timeoutMs);
  };
  touch();
  return { touch, stop: () => clearTimeout(timer), fired: () => fired };
}

/** An SSE event's data as the JSON-RPC envelope it carries; undefined: nothing a client could read. */
type EventReader = (data: string) => unknown;

function jsonRpcEvent(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

async function relayStream(context: A2aCall, id: RpcId, response: PooledAnswer, outcome: A2aOutcome, timer: ReturnType<typeof watchdog>, binding: A2aBinding, read: EventReader): Promise<void> {
  const { res } = context.call;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', [A2A_VERSION_HEADER]: context.callerVersion });
  res.flushHeaders();
  outcome.events = 0;
  outcome.firstByteMs = context.call.services.now() - context.startedAt;
  const write = (answer: unknown) => res.write(binding.event(answer as Record<string, unknown>));
  try {
    const { outbound } = context.call.services;
    for await (const data of sseData(cappedStream(response.body, outbound.maxAnswerBytes, answerSource(endpointOf(context.target.integration).url)))) {
      timer.touch();
      const answer = read(data);
      if (answer === undefined) continue;
      try {
        write(await answerFor(context, id, answer, outcome));
        outcome.events++;
      } catch (error) {
        if (!(error instanceof A2aRefusal)) throw error;
        // A denied event ends the stream: the caller gets the refusal instead of it, the agent's stream is dropped.
        outcome.status = error.status;
        outcome.error = error.logError;
        write(rpcError(id, error.code, error.message, error.data));
        response.body.destroy();
        return;
      }
    }
  } catch (error) {
    if (res.destroyed) return; // the caller left; the upstream was aborted with it
    const refusal = upstreamRefusal(context, error, timer.fired());
    outcome.status = refusal.status;
    outcome.error = refusal.logError;
    write(rpcError(id, refusal.code, refusal.message, refusal.data));
  } finally {
    res.end();
  }
}

export async function serveA2aPost(call: Call, principal: Principal, slug: string, body: unknown): Promise<void> {
  const target = await resolveA2aTarget(call.services.agents, principal, slug);
  let request: RpcRequest;
  try {
    request = parseRequest(body);
  } catch (error) {
    if (!(error instanceof A2aRefusal)) throw error;
    sendRefusal(call, (error as A2aRefusal & { id: RpcId }).id, error);
    return;
  }
  const versionHeader = header(call, A2A_VERSION_HEADER);
  if (isUnsupportedVersion(versionHeader)) {
    sendRefusal(call, request.id, new A2aRefusal(400, VERSION_NOT_SUPPORTED, `A2A version ${versionHeader} is not supported: gw serves 0.3 and 1.0`, { type: 'invalid_request_error', code: 'a2a_version_not_supported' }));
    return;
  }
  await relayA2aRequest(call, principal, target, request, body);
}

/**
 * What gw sends the agent: over JSON-RPC the request in the agent's generation; over HTTP+JSON the
 * method's route, its params first brought to 1.0 JSON (rest-upstream.ts speaks 1.0 to 0.3 agents too).
 */
function agentCallFor(context: A2aCall, request: RpcRequest, endpoint: AgentEndpoint): { method: 'GET' | 'POST' | 'DELETE'; url: string; body?: string } {
  const known = isKnownMethod(request.method);
  if (endpoint.binding === 'rest') {
    const params = known && context.callerVersion !== '1.0' ? paramsTo(context.canonical, request.params, '1.0') : request.params;
    const call = known ? restAgentCall(endpoint, context.canonical, params) : undefined;
    if (!call) {
      const slug = context.target.integration.slug;
      throw new A2aRefusal(400, RPC.unsupportedOperation, `${request.method} has no route in the HTTP+JSON binding of A2A ${context.agentVersion}, the only one agent ${slug} offers`, { type: 'invalid_request_error', code: 'a2a_unsupported_operation' });
    }
    return call;
  }
  const bridged = context.callerVersion !== context.agentVersion && known;
  const agentBody = {
    jsonrpc: '2.0',
    id: request.id,
    method: methodIn(request.method, context.agentVersion) ?? request.method,
    params: bridged ? paramsTo(context.canonical, request.params, context.agentVersion) : request.params,
  };
  return { method: 'POST', url: endpoint.url, body: JSON.stringify(agentBody) };
}

/** One request, read, relayed to the agent and answered in `binding`'s shape; logged whatever happens. */
export async function relayA2aRequest(call: Call, principal: Principal, target: A2aTarget, request: RpcRequest, logged: unknown, binding: A2aBinding = jsonRpcBinding): Promise<void> {
  const slug = target.integration.slug;
  const endpoint = endpointOf(target.integration);
  const context = contextFor(call, principal, target, request, endpoint);
  if (binding !== jsonRpcBinding) context.binding = binding.name;
  const outcome: A2aOutcome = { status: 200, request: logged, guardrails: [] };
  const stream = isStreamingMethod(request.method);
  const abort = new AbortController();
  call.res.once('close', () => {
    if (!call.res.writableFinished) abort.abort();
  });
  let timer: ReturnType<typeof watchdog> | undefined;
  try {
    await admit(context, request, outcome);
    const agentCall = agentCallFor(context, request, endpoint);
    timer = watchdog(call.services.config.requestTimeoutMs, abort);
    let response: PooledAnswer;
    try {
      const headers = agentRequestHeaders(context, stream);
      const tls = call.services.agentAuth.tls(target.integration);
      response = await call.services.agentAuth.send(target.integration, (auth) =>
        call.services.pooledHttp.post(agentCall.url, { method: agentCall.method, headers: { ...headers, ...auth }, body: agentCall.body, signal: abort.signal, tls }, AGENT_URL),
      );
    } catch (error) {
      throw upstreamRefusal(context, error, timer.fired());
    }
    const rest = endpoint.binding === 'rest';
    const restVersion = context.agentVersion;
    if (stream && String(response.headers['content-type'] ?? '').includes('text/event-stream')) {
      const read: EventReader = rest ? (data) => restEvent(restVersion, context.canonical, request.id, data) : jsonRpcEvent;
      await relayStream(context, request.id, response, outcome, timer, binding, read);
      return;
    }
    let answer: unknown;
    try {
      const bytes = await readCappedBody(response.body, response.headers, call.services.outbound.maxAnswerBytes, answerSource(endpoint.url));
      const text = bytes.toString('utf8');
      answer = rest ? restAnswer(restVersion, context.canonical, request.id, response.statusCode, text) : JSON.parse(text);
    } catch (error) {
      if (error instanceof SyntaxError) throw new A2aRefusal(502, RPC.internal, `Agent ${slug} answered HTTP ${response.statusCode} without a JSON-RPC answer`, { type: 'upstream_error', code: 'a2a_upstream_error' });
      throw upstreamRefusal(context, error, timer.fired());
    }
    outcome.response = answer;
    const answered = await answerFor(context, request.id, answer, outcome);
    outcome.response = answered;
    binding.answer(call, answered as Record<string, unknown>, { [A2A_VERSION_HEADER]: context.callerVersion });
    // The status the binding answered with (an HTTP+JSON binding's 201, or an agent's error as 404), for the log.
    outcome.status = call.res.statusCode;
  } catch (error) {
    if (!(error instanceof A2aRefusal)) throw error;
    outcome.status = error.status;
    outcome.error = error.logError;
    binding.refuse(call, request.id, error);
  } finally {
    timer?.stop();
    recordA2aCall(context, outcome);
  }
}

/** The agent's card as gw serves it (GET `{base}/a2a/{slug}/.well-known/agent-card.json`). */
export async function a2aCardFor(call: Call, principal: Principal, slug: string): Promise<Record<string, unknown>> {
  const target = await resolveA2aTarget(call.services.agents, principal, slug);
  return gatewayCard(target.integration, agentGatewayUrl(call.services.config.publicUrl, slug));
}
