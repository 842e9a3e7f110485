import type { IncomingHttpHeaders } from 'node:http';
import type { Context, OpenAPIBackend, Operation } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import type { Call } from '../core/call.js';

/**
 * The gateway calls, served through the handlers openapi-backend has registered (security,
 * scope checks, validation, the operation, the response) but without its per-request routing:
 * openapi-backend parses and matches the request two or three times and rebuilds the parameter
 * object with lodash, which cost about a sixth of the chat path's CPU (`BENCH_PROFILE=1 make bench`).
 * Only paths without a query string come here; everything else takes the general route. A hot
 * operation may have one path parameter that is a whole segment (`/v1/prompts/{id}/completions`).
 */
const HOT_OPERATIONS = ['createChatCompletion', 'createEmbedding', 'createCompletion', 'listModels', 'createPromptCompletion', 'createResponse', 'createAnthropicMessage', 'postA2aGateway', 'postMcpGateway'] as const;

export type HotOperation = (call: Call, body: unknown, params?: Record<string, string>) => Promise<void>;

/** Finds the hot operation for `METHOD` and a request URL, with its path parameter, or undefined. */
export interface HotOperations {
  match(method: string | undefined, url: string | undefined): { run: HotOperation; params?: Record<string, string> } | undefined;
}

interface Templated {
  method: string;
  /** What comes before and after the parameter's segment. */
  prefix: string;
  suffix: string;
  param: string;
  run: HotOperation;
}

export function createHotOperations(api: OpenAPIBackend): HotOperations {
  const exact = new Map<string, HotOperation>();
  const templated: Templated[] = [];
  for (const operationId of HOT_OPERATIONS) {
    const operation = api.getOperation(operationId);
    if (!operation) throw new Error(`hot operation ${operationId} is not in the spec`);
    const method = operation.method.toUpperCase();
    const parts = /^([^{]*\/)\{([A-Za-z_]+)\}(\/[^{]*)?$/.exec(operation.path);
    if (!operation.path.includes('{')) exact.set(`${method} ${operation.path}`, operationRunner(api, operation));
    else if (parts) templated.push({ method, prefix: parts[1]!, param: parts[2]!, suffix: parts[3] ?? '', run: operationRunner(api, operation) });
    else throw new Error(`hot operation ${operationId} has more than one path parameter`);
  }
  return {
    match(method, url) {
      const run = exact.get(`${method} ${url}`);
      if (run) return { run };
      if (!url || url.includes('?')) return undefined;
      for (const op of templated) {
        if (op.method !== method || !url.startsWith(op.prefix) || !url.endsWith(op.suffix)) continue;
        let segment = url.slice(op.prefix.length, url.length - op.suffix.length);
        // `/a2a/{agentSlug}/`: A2A clients call the agent's URL with the slash its card resolution needs.
        if (!op.suffix && segment.endsWith('/')) segment = segment.slice(0, -1);
        if (!segment || segment.includes('/')) continue;
        try {
          return { run: op.run, params: { [op.param]: decodeURIComponent(segment) } };
        } catch {
          return undefined; // Malformed escapes: the general route answers them.
        }
      }
      return undefined;
    },
  };
}

/** Runs one operation's registered handlers for a request routed without openapi-backend (hot paths, the pass-through). */
export function operationRunner(api: OpenAPIBackend, operation: Operation): HotOperation {
  const operationId = operation.operationId as string;
  const requirements = operation.security ?? [];
  const schemes = [...new Set(requirements.flatMap((requirement) => Object.keys(requirement)))];
  // Each requirement's scheme names, worked out once rather than on every request.
  const requirementSchemes = requirements.map((requirement) => Object.keys(requirement));
  const validators = api.validator.getRequestValidatorsForOperation(operationId);
  const handler = api.handlers[operationId];
  const { postSecurityHandler, unauthorizedHandler, validationFail, postResponseHandler } = api.handlers;
  const route = `${operation.method.toUpperCase()} ${operation.path}`;
  if (!handler || !postSecurityHandler || !unauthorizedHandler || !validationFail || !postResponseHandler) {
    throw new Error(`hot operation ${operationId} needs its handler and the security, validation and response handlers registered`);
  }

  return async (call, body, params = {}) => {
    call.route = route;
    call.trace?.named(route);
    const headers = call.req.headers;
    const c = {
      api,
      operation,
      // The request's own path, as openapi-backend gives it: the MCP gateway's OAuth checks name it (resource-challenge.ts).
      request: { method: operation.method, path: pathOf(call.req.url) ?? operation.path, headers, query: {}, params, cookies: {}, requestBody: body },
    } as unknown as Context;

    // Each scheme's result, then `authorized`: the object openapi-backend hands the handlers as c.security.
    const results: Record<string, unknown> = {};
    for (const name of schemes) {
      try {
        const result = api.securityHandlers[name]!(c, call);
        results[name] = result instanceof Promise ? await result : result;
      } catch (error) {
        results[name] = { error: error || new Error('security handler rejected') };
      }
    }
    const authorized = requirementSchemes.some((names) => names.every((name) => passed(results[name])));
    results.authorized = authorized;
    c.security = results as Context['security'];
    await postSecurityHandler(c, call);
    if (!authorized && requirements.length > 0) {
      await unauthorizedHandler(c, call);
      return;
    }

    const errors = validate(validators, headers, body, params);
    if (errors) {
      c.validation = { valid: false, errors };
      await validationFail(c, call);
      return;
    }
    c.response = await handler(c, call);
    await postResponseHandler(c, call);
  };
}

/** The request URL without its query string (hot operations come without one). */
function pathOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** A scheme passes as in openapi-backend: a truthy result that carries no truthy `error`. */
function passed(result: unknown): boolean {
  return Boolean(result) && !(typeof result === 'object' && (result as { error?: unknown }).error);
}

/**
 * openapi-backend's compiled validators take { path, query, header, cookie, requestBody }. Headers
 * are copied because coercion (coerceTypes) rewrites the object it validates.
 */
function validate(
  validators: ReturnType<OpenAPIBackend['validator']['getRequestValidatorsForOperation']>,
  headers: IncomingHttpHeaders,
  body: unknown,
  params: Record<string, string>,
): ErrorObject[] | null {
  const parameters: Record<string, unknown> = { path: { ...params }, query: {}, header: { ...headers }, cookie: {} };
  if (body !== undefined) parameters.requestBody = body;
  let errors: ErrorObject[] | null = null;
  for (const check of validators) {
    if (!check(parameters)) (errors ??= []).push(...(check.errors ?? []));
  }
  return errors;
}
