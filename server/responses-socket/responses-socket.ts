/**
 * The WebSocket mode of the Responses API (docs/responses.md): `GET /v1/responses` upgraded on the
 * same listener as the HTTP API. The gw key is checked before upgrading (401 otherwise); then each
 * `response.create` message runs as `POST /v1/responses` with `stream: true` through the same
 * operation (security, validation, limits, guardrails, logs, cost), one at a time, and every event
 * of its stream goes out as one JSON text message. The socket keeps its latest response in memory
 * (socket-memory.ts) so `previous_response_id` continues it without storage.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { OpenAPIBackend } from 'openapi-backend';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Call } from '../../core/call.js';
import { ApiError, InternalError, UnauthorizedError, ValidationError, errorBody } from '../../core/errors.js';
import { redactedApiError, redactedError } from '../../core/request-secrets.js';
import type { Services } from '../../core/services.js';
import { AddressRanges, clientAddress } from '../../core/security/ip-ranges.js';
import { authorizationIsProviderCredential } from '../../gateway/resolve/provider-plan.js';
import { rememberOnSocket, socketMemoryOf } from '../../gateway/responses/socket-memory.js';
import { operationRunner, type HotOperation } from '../hot-operations.js';
import { SocketResponse, type SocketErrorEvent } from './socket-response.js';

const PATH = '/v1/responses';
/** Messages waiting behind the running response; more is a client not waiting for its answers. */
const MAX_QUEUED = 16;
/** Fields of an HTTP body a WebSocket message must not carry (the socket is the stream). */
const HTTP_ONLY_FIELDS = ['stream', 'stream_options', 'background'] as const;

export interface ResponsesSockets {
  /** Serves an HTTP upgrade request (any other path than the Responses API's is refused with 404). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Stops taking responses, lets those running finish (within timeoutMs), then closes every socket (1001). */
  drain(timeoutMs: number): Promise<void>;
}

export function createResponsesSockets(api: OpenAPIBackend, services: Services): ResponsesSockets {
  const operation = api.getOperation('createResponse');
  if (!operation) throw new Error('createResponse is not in the spec');
  const run = operationRunner(api, operation);
  const { config } = services;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.responsesWsMaxMessageBytes });
  const trustedProxies = new AddressRanges(config.trustedProxies);
  const served = new Set<Promise<void>>();
  let closing = false;

  return {
    upgrade(req, socket, head) {
      // Node hands every Upgrade request here once anyone listens (curl --http2 sends `Upgrade: h2c`):
      // one that is not a WebSocket is served as the plain HTTP request it also is.
      if (req.headers.upgrade?.toLowerCase() !== 'websocket') return replayAsHttp(req, socket, head);
      socket.on('error', () => socket.destroy());
      const path = (req.url ?? '/').split('?')[0];
      if (path !== PATH || req.method !== 'GET') return refuse(socket, new ApiError(404, 'route_not_found', `No WebSocket route for ${req.method ?? 'GET'} ${path}`, 'not_found_error'));
      if (closing || services.lifecycle.stopping) return refuse(socket, new ApiError(503, 'shutting_down', 'gw is shutting down', 'api_error'));
      authenticate(services, req).then(
        () => wss.handleUpgrade(req, socket, head, (ws) => {
          const serving = serve(ws, req, { run, services, ip: clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], trustedProxies), closing: () => closing });
          served.add(serving);
          void serving.finally(() => served.delete(serving));
        }),
        (error: unknown) => {
          if (error instanceof ApiError) return refuse(socket, error);
          services.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'Responses WebSocket upgrade failed');
          refuse(socket, new InternalError(randomUUID()));
        },
      );
    },
    async drain(timeoutMs) {
      closing = true;
      for (const ws of wss.clients) ws.emit('gw:drain');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(served), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

/** Headers of an upgrade offer, dropped when the request is served as plain HTTP. */
const UPGRADE_HEADERS = new Set(['upgrade', 'connection', 'http2-settings']);

/**
 * Gives the connection back to its HTTP server with the request as it came, less the upgrade offer
 * (which HTTP/1.1 lets a server ignore): the server parses it again and answers it as any request.
 */
function replayAsHttp(req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const server = (req.socket as { server?: { emit(event: 'connection', socket: Duplex): boolean } }).server;
  if (!server) {
    socket.destroy();
    return;
  }
  const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!UPGRADE_HEADERS.has(req.rawHeaders[i]!.toLowerCase())) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit('connection', socket);
}

/** The gw key of the upgrade request, read as HTTP reads it: x-gw-api-key, else a Bearer token that is not the provider's key. */
async function authenticate(services: Services, req: IncomingMessage): Promise<void> {
  const given = req.headers['x-gw-api-key'];
  const key = Array.isArray(given) ? given[0] : given;
  if (key) {
    await services.credentials.fromToken(key, 'x-gw-api-key');
    return;
  }
  const bearer = req.headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  if (bearer && !authorizationIsProviderCredential(req.headers, undefined)) {
    await services.credentials.fromToken(bearer, 'Authorization');
    return;
  }
  throw new UnauthorizedError('Missing gw API key: send it in the x-gw-api-key header or as Authorization: Bearer <gw key>', 'missing_api_key');
}

/** An upgrade refused before the handshake: a plain HTTP answer in gw's error shape, then the connection closed. */
function refuse(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify(errorBody(error));
  const head = [`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`, 'content-type: application/json; charset=utf-8', `content-length: ${Buffer.byteLength(body)}`, 'connection: close'];
  if (error.status === 401) head.push('www-authenticate: Bearer');
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

interface Serving {
  run: HotOperation;
  services: Services;
  ip: string;
  closing(): boolean;
}

/** One socket's life: its messages answered in order, closed when idle, drained at shutdown. Resolves when it closes. */
function serve(ws: WebSocket, req: IncomingMessage, serving: Serving): Promise<void> {
  rememberOnSocket(req);
  let queue = Promise.resolve();
  let queued = 0;
  let idle: NodeJS.Timeout | undefined;
  const restartIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => ws.close(1000, 'idle timeout'), serving.services.config.responsesWsIdleMs);
  };
  restartIdle();
  const closed = new Promise<void>((resolve) => ws.once('close', resolve));
  // At shutdown: the running response (and those queued) finish, then the socket closes.
  const closeIfDrained = () => {
    if (serving.closing() && queued === 0) ws.close(1001, 'server shutting down');
  };
  ws.once('gw:drain', closeIfDrained);
  ws.on('message', (data: RawData, isBinary: boolean) => {
    clearTimeout(idle);
    if (queued >= MAX_QUEUED) {
      sendError(ws, new ApiError(429, 'too_many_queued_responses', `At most ${MAX_QUEUED} response.create messages may wait on one socket`, 'invalid_request_error'));
      return;
    }
    queued++;
    queue = queue
      .then(() => (serving.closing() ? sendError(ws, new ApiError(503, 'shutting_down', 'gw is shutting down', 'api_error')) : answer(ws, req, serving, isBinary ? null : data.toString('utf8'))))
      .finally(() => {
        queued--;
        closeIfDrained();
        if (queued === 0 && ws.readyState === ws.OPEN) restartIdle();
      });
  });
  // A message over maxPayload closes the socket (1009) through ws itself; other socket errors end it too.
  ws.on('error', () => ws.terminate());
  return closed.then(async () => {
    clearTimeout(idle);
    await queue;
  });
}

/** One `response.create` message: run as the HTTP operation, its events sent as they come. */
async function answer(ws: WebSocket, req: IncomingMessage, serving: Serving, text: string | null): Promise<void> {
  let body: Record<string, unknown>;
  try {
    body = requestOf(text);
  } catch (error) {
    sendError(ws, error as ApiError);
    return;
  }
  const res = new SocketResponse(ws);
  const call: Call = { traceId: randomUUID(), req, res: res as unknown as ServerResponse, ip: serving.ip, startedAt: serving.services.now(), services: serving.services, principal: undefined, route: undefined, security: undefined, trace: undefined };
  // The client going away stops the call upstream, as a closed HTTP connection does.
  const onClose = () => res.destroy();
  ws.once('close', onClose);
  let status: number;
  try {
    await serving.run(call, body);
    if (!res.writableEnded && !res.destroyed) res.end();
    await res.done();
    status = res.statusCode;
  } catch (error) {
    res.failed = true;
    if (!res.destroyed) res.destroy();
    const refusal = error instanceof ApiError ? redactedApiError(call, error) : new InternalError(call.traceId);
    if (!(error instanceof ApiError)) serving.services.logger.error({ err: redactedError(call, error), traceId: call.traceId }, 'unhandled error on a Responses WebSocket');
    sendError(ws, refusal);
    status = refusal.status;
  } finally {
    ws.off('close', onClose);
  }
  // Counted in gw_http_* as the same call over HTTP would be.
  serving.services.metrics?.observeHttp(call.route ?? 'unmatched', status, (serving.services.now() - call.startedAt) / 1000);
  // A failed continuation forgets the response it continued: the client starts over from its own copy.
  const memory = socketMemoryOf(req);
  if (res.failed && memory?.latest && memory.latest.id === body.previous_response_id) memory.latest = undefined;
}

/** The HTTP body of a `response.create` message, or the error to answer it with. */
function requestOf(text: string | null): Record<string, unknown> {
  if (text === null) throw new ValidationError('Messages are JSON text, not binary', null, 'invalid_message');
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new ValidationError('The message is not valid JSON', null, 'invalid_json');
  }
  if (!message || typeof message !== 'object' || Array.isArray(message)) throw new ValidationError('The message must be a JSON object', null, 'invalid_message');
  const { type, ...request } = message as Record<string, unknown>;
  if (type !== 'response.create') throw new ValidationError(`Unsupported message type ${JSON.stringify(type)}: send response.create`, 'type', 'unsupported_message_type');
  for (const field of HTTP_ONLY_FIELDS) {
    if (field in request) throw new ValidationError(`${field} is not sent on a WebSocket: every response is streamed as messages`, field, 'unsupported_parameter');
  }
  return { ...request, stream: true };
}

function sendError(ws: WebSocket, error: ApiError): void {
  if (ws.readyState !== ws.OPEN) return;
  const body = errorBody(error);
  const fields = body.error as { type?: string; code?: string; message?: string; param?: string | null };
  const event: SocketErrorEvent = { type: 'error', status: error.status, error: { type: fields.type ?? error.type, code: fields.code ?? error.code, message: fields.message ?? error.message, param: fields.param ?? null } };
  // A guardrail's verdicts, as the HTTP error body carries them.
  if (body.hook_results) event.hook_results = body.hook_results;
  ws.send(JSON.stringify(event));
}
