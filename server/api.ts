import type { IncomingHttpHeaders } from 'node:http';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import { STREAMED, type Handler, type HandlerResult } from '../handlers/types.js';
import type { Call } from '../core/call.js';
import { assertAddressAllowed } from '../core/security/settings.js';
import { requireKeyKind, requireScope } from '../core/call.js';
import { isAudited, recordAudit } from './audit.js';
import { refuseDataPlaneAdminWrite } from './data-plane-writes.js';
import { ApiError, UnauthorizedError } from '../core/errors.js';
import { errorFormatOf, inErrorFormat } from '../core/protocol-errors.js';
import { speedUpRouter } from './router-speedups.js';
import { sendJson, sendText } from '../core/respond.js';
import { JsonText } from '../core/json-text.js';
import type { Services } from '../core/services.js';
import { toValidationError } from '../core/validation-message.js';
import { logRefusedChat } from '../gateway/chat/refused-chat-log.js';
import type { LogEndpoint } from '../core/request-log.js';
import { authorizationIsProviderCredential } from '../gateway/resolve/provider-plan.js';
import { assertTokenResource, withResourceChallenge } from './auth/oauth/resource-challenge.js';

/** Gateway calls that run the chat pipeline are logged whatever their outcome, refusals before the handler included. */
const PIPELINE_OPERATIONS: Record<string, LogEndpoint> = { createChatCompletion: 'chat.completions', createResponse: 'responses', compactResponse: 'responses', createAnthropicMessage: 'messages' };

function logRefused(c: Context, call: Call, error: ApiError): void {
  const endpoint = PIPELINE_OPERATIONS[c.operation.operationId ?? ''];
  if (endpoint) logRefusedChat(call, c.request.requestBody, error, endpoint);
}

type SecurityResult = { error?: unknown } | undefined;

/** openapi-backend validates documents against OpenAPI 3.0 only; gw's spec is 3.1 and is checked before construction. */
class OpenApi31Backend extends OpenAPIBackend {
  override validateDefinition() {
    return this.document;
  }
}

/** Stops the boot when the spec is not valid OpenAPI (any version the validator knows, 3.1 here). */
export async function assertValidSpec(definition: Document): Promise<void> {
  const result = await new Validator().validate(structuredClone(definition) as Record<string, unknown>);
  if (!result.valid) {
    const errors = Array.isArray(result.errors) ? result.errors.slice(0, 5) : result.errors;
    throw new Error(`spec is not valid OpenAPI: ${JSON.stringify(errors, null, 2)}`);
  }
}

/**
 * Builds the spec-driven router: openapi-backend in strict mode with validators compiled at boot,
 * every special handler registered, and a check that operations and handlers match one to one.
 */
export async function createApi(definition: Document, handlers: Record<string, Handler>, services: Services): Promise<OpenAPIBackend> {
  await assertValidSpec(definition);
  const api = new OpenApi31Backend({
    definition,
    strict: true,
    validate: true,
    // quick: validators compile on first use instead of all at boot; request validators are then
    // compiled explicitly after init (below), response validators (tests only) stay lazy.
    quick: true,
    coerceTypes: true,
    // OpenAPI 3.1 schemas are JSON Schema 2020-12.
    // openapi-backend makes one ajv per operation and context; validateSchema false spares each of
    // them compiling the 2020-12 meta-schema (seconds per boot): assertValidSpec has checked the spec.
    customizeAjv: (_ajv, options) => {
      const ajv = new Ajv2020({ ...options, strict: false, discriminator: true, verbose: true, allErrors: false, validateSchema: false });
      addFormats.default(ajv);
      return ajv as never;
    },
  });

  api.register({
    postRoutingHandler: async (c: Context, call: Call) => {
      if (!c.operation) return;
      call.route = `${c.operation.method.toUpperCase()} ${c.operation.path}`;
      call.trace?.named(call.route);
    },
    notFound: async (c: Context) => {
      throw new ApiError(404, 'route_not_found', `No route for ${c.request.method.toUpperCase()} ${c.request.path}`, 'not_found_error');
    },
    methodNotAllowed: async (c: Context) => {
      throw new ApiError(405, 'method_not_allowed', `${c.request.method.toUpperCase()} is not allowed on ${c.request.path}`, 'invalid_request_error');
    },
    notImplemented: async (c: Context) => {
      throw new ApiError(501, 'not_implemented', `${c.operation.operationId} is not implemented`, 'api_error');
    },
    validationFail: async (c: Context, call: Call) => {
      const error = toValidationError(c.validation.errors);
      logRefused(c, call, error);
      throw inErrorFormat(errorFormatOf(c.operation), error);
    },
    unauthorizedHandler: async (c: Context) => {
      // The most specific reason any scheme gave (expired beats unknown beats missing).
      const reasons = Object.values(c.security ?? {})
        .map((result) => (result as SecurityResult)?.error)
        .filter((error): error is ApiError => error instanceof ApiError);
      const reason = reasons.find((e) => e.code !== 'missing_api_key') ?? reasons[0] ?? new UnauthorizedError();
      throw inErrorFormat(errorFormatOf(c.operation), withResourceChallenge(c, reason, services.config.publicUrl));
    },
    postSecurityHandler: async (c: Context, call: Call) => {
      if (!c.security?.authorized) return;
      for (const result of Object.values(c.security)) {
        const principal = (result as { principal?: Call['principal'] })?.principal;
        if (principal) call.principal = principal;
      }
      const operation = c.operation as { 'x-gw-scope'?: string; 'x-gw-key-kinds'?: string[]; 'x-gw-own-key'?: boolean };
      if (!call.principal) return;
      try {
        // Cached with the workspace's other data: no store read per request.
        call.security = await services.savedResources.securitySettings(call.principal.organisationId, call.principal.workspaceId);
        assertAddressAllowed(call.security, call.ip);
        assertTokenResource(c, call.principal, services.config.publicUrl);
        if (services.config.controlPlane) refuseDataPlaneAdminWrite(c.operation);
        if (operation['x-gw-key-kinds']) requireKeyKind(call.principal, operation['x-gw-key-kinds']);
        // x-gw-own-key: a user's key may act on that user's own keys without the scope; the handler checks ownership.
        const ownKeyWaiver = operation['x-gw-own-key'] === true && call.principal.userId !== null;
        if (operation['x-gw-scope'] && !ownKeyWaiver) requireScope(call.principal, operation['x-gw-scope']);
      } catch (denied) {
        // A refused administrative write is itself worth auditing.
        if (denied instanceof ApiError) await recordAudit(c, call, denied.status);
        if (denied instanceof ApiError) logRefused(c, call, denied);
        throw inErrorFormat(errorFormatOf(c.operation), withResourceChallenge(c, denied, services.config.publicUrl));
      }
    },
    postResponseHandler: async (c: Context, call: Call) => {
      const result = c.response as HandlerResult;
      if (result === STREAMED) return;
      const status = result.status ?? 200;
      if (services.config.validateResponses) assertResponseMatchesSpec(api, c, status, result.body);
      if (typeof result.body === 'string' && result.headers?.['content-type']?.startsWith('text/')) sendText(call.res, status, result.body, result.headers);
      else sendJson(call.res, status, result.body, result.headers);
    },
  });

  api.registerSecurityHandler('gwApiKey', async (c: Context) => {
    const header = c.request.headers['x-gw-api-key'];
    const secret = Array.isArray(header) ? header[0] : header;
    if (!secret && carriesProviderAuth(c)) throw missingGatewayKey(c);
    return { principal: await services.credentials.fromToken(secret, 'x-gw-api-key') };
  });
  // Not async: on gateway calls this scheme usually answers without a lookup, and the hot
  // operations await only a promise (server/hot-operations.ts).
  api.registerSecurityHandler('bearerAuth', (c: Context) => {
    // On gateway calls x-gw-api-key wins when sent, and an inline provider's key is never read as a gw key.
    if (carriesProviderAuth(c) && (c.request.headers['x-gw-api-key'] !== undefined || authorizationIsProviderCredential(c.request.headers, modelOf(c)))) {
      return AUTHORIZATION_NOT_READ;
    }
    const header = c.request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    const token = value?.match(/^Bearer\s+(.+)$/i)?.[1];
    // No bearer token beside an x-gw-api-key the operation also takes: not presented (falsy, no
    // error), so the key's own result decides, without building a "missing key" error on every call.
    if (token === undefined && c.request.headers['x-gw-api-key'] !== undefined && takesGwApiKey(c)) return undefined;
    return services.credentials.fromToken(token, 'Authorization').then((principal) => ({ principal }));
  });
  // Anthropic clients send their key in x-api-key (the Messages door): read as a gw key there.
  api.registerSecurityHandler('anthropicApiKey', async (c: Context) => {
    const header = c.request.headers['x-api-key'];
    const secret = Array.isArray(header) ? header[0] : header;
    // Absent: not presented (falsy, no error), so the other schemes' reasons are the ones reported.
    return secret ? { principal: await services.credentials.fromToken(secret, 'x-api-key') } : undefined;
  });
  api.registerSecurityHandler('sessionCookie', (c: Context) => {
    // No cookie: the scheme was not presented (falsy, no error), so the other schemes' reasons are the ones reported.
    const resolving = services.credentials.fromCookie(c.request.headers as IncomingHttpHeaders, c.request.method);
    return resolving?.then((principal) => ({ principal }));
  });

  await api.init();
  api.validator.preCompileRequestValidators();
  speedUpRouter(api);
  registerHandlers(api, handlers);
  return api;
}

/**
 * `x-gw-provider-auth`: a gateway call whose Authorization header may carry the upstream
 * provider's key (x-gw-provider with a provider name, or a custom host). On such calls
 * Authorization is read as the gw API key only when nothing reads it as a provider key (a config,
 * a saved provider, or no provider signal) and x-gw-api-key is absent; see
 * gateway/resolve/provider-plan.ts authorizationIsProviderCredential.
 */
function carriesProviderAuth(c: Context): boolean {
  return (c.operation as { 'x-gw-provider-auth'?: boolean } | undefined)?.['x-gw-provider-auth'] === true;
}

/** Whether the operation accepts the key in x-gw-api-key (the SCIM routes take bearer tokens only). */
function takesGwApiKey(c: Context): boolean {
  return ((c.operation as { security?: Array<Record<string, unknown>> } | undefined)?.security ?? []).some((requirement) => 'gwApiKey' in requirement);
}

/** Built once: the bearer scheme steps aside on every gateway call that sends x-gw-api-key. */
const AUTHORIZATION_NOT_READ = Object.freeze({ error: new UnauthorizedError('Authorization is not read as the gw API key on this request', 'missing_api_key') });

function modelOf(c: Context): unknown {
  const body = c.request.requestBody as { model?: unknown } | undefined;
  return body && typeof body === 'object' ? body.model : undefined;
}

/** The 401 of a gateway call without x-gw-api-key: where the gw key may go on this request. */
function missingGatewayKey(c: Context): UnauthorizedError {
  if (authorizationIsProviderCredential(c.request.headers, modelOf(c))) {
    return new UnauthorizedError(
      'Missing gw API key: send it in the x-gw-api-key header (Authorization carries the provider key when x-gw-provider names a provider or x-gw-custom-host is set)',
      'missing_api_key',
    );
  }
  return new UnauthorizedError('Missing gw API key: send it in the x-gw-api-key header or as Authorization: Bearer <gw key>', 'missing_api_key');
}

function registerHandlers(api: OpenAPIBackend, handlers: Record<string, Handler>): void {
  const operationIds = new Set(api.getOperations().map((operation) => operation.operationId as string));
  const missing = [...operationIds].filter((id) => !handlers[id]);
  const unknown = Object.keys(handlers).filter((id) => !operationIds.has(id));
  if (missing.length || unknown.length) {
    throw new Error(
      `spec and handlers disagree: ${missing.length ? `no handler for ${missing.join(', ')}` : ''}` +
        `${missing.length && unknown.length ? '; ' : ''}${unknown.length ? `no operation for ${unknown.join(', ')}` : ''}`,
    );
  }
  // A scope outside the spec's Scope list could never be granted: the operation would be closed to every key.
  const knownScopes = new Set((api.definition.components?.schemas?.Scope as { enum?: string[] } | undefined)?.enum ?? []);
  for (const id of operationIds) {
    const scope = (api.getOperation(id) as { 'x-gw-scope'?: string } | undefined)?.['x-gw-scope'];
    const secured = (api.getOperation(id)?.security ?? []).length > 0;
    // x-gw-no-scope: any authenticated caller may call it (GET /v1/auth/self, sign-out); it says so explicitly.
    const scopeFree = (api.getOperation(id) as { 'x-gw-no-scope'?: boolean } | undefined)?.['x-gw-no-scope'] === true;
    if (secured && !scope && !scopeFree) throw new Error(`operation ${id} is secured but declares no x-gw-scope`);
    if (scope && !knownScopes.has(scope)) throw new Error(`operation ${id} declares x-gw-scope ${scope}, which is not in the spec's Scope list`);
  }
  api.register(Object.fromEntries(Object.entries(handlers).map(([id, handler]) => [id, inOperationErrorFormat(api, id, withAudit(api, id, handler))])) as never);
}

/** Operations that speak SCIM or OAuth answer errors in that protocol's shape (core/protocol-errors.ts). */
function inOperationErrorFormat(api: OpenAPIBackend, operationId: string, handler: Handler): Handler {
  const format = errorFormatOf(api.getOperation(operationId));
  if (!format) return handler;
  return async (c, call) => {
    try {
      return await handler(c, call);
    } catch (error) {
      throw inErrorFormat(format, error);
    }
  };
}

/** Administrative writes (server/audit.ts decides which) leave an audit entry whatever their outcome. */
function withAudit(api: OpenAPIBackend, operationId: string, handler: Handler): Handler {
  const operation = api.getOperation(operationId);
  for (const kind of ((operation as { 'x-gw-key-kinds'?: unknown[] } | undefined)?.['x-gw-key-kinds'] ?? [])) {
    if (kind !== 'organisation' && kind !== 'workspace') throw new Error(`operation ${operationId} names unknown key kind ${String(kind)}`);
  }
  if (!isAudited(operation as never)) return handler;
  return async (c, call) => {
    let result: HandlerResult;
    try {
      result = await handler(c, call);
    } catch (error) {
      await recordAudit(c, call, error instanceof ApiError ? error.status : 500);
      throw error;
    }
    if (result !== STREAMED) await recordAudit(c, call, result.status ?? 200, result);
    return result;
  };
}

/** Tests run with this on: a response that does not match the spec fails the request loudly. */
export function assertResponseMatchesSpec(api: OpenAPIBackend, c: Context, status: number, body: unknown): void {
  if (!c.operation) return;
  // A redirect or empty answer the spec declares without content has nothing to validate.
  const declared = (c.operation.responses as Record<string, { content?: Record<string, unknown> }> | undefined)?.[String(status)];
  if (body === undefined && declared && !declared.content) return;
  // A page (text/html) is checked for being text; openapi-backend validates JSON bodies only.
  if (typeof body === 'string' && declared?.content && Object.keys(declared.content).every((type) => type.startsWith('text/'))) return;
  const result = api.validateResponse(body instanceof JsonText ? body.toJSON() : body, c.operation, status);
  if (result.errors?.length) {
    const detail = result.errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new ApiError(500, 'response_validation_failed', `${c.operation.operationId} answered ${status} off-spec: ${detail}`, 'api_error');
  }
}
