import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { LRUCache } from 'lru-cache';
import { UpstreamError, ValidationError } from '../../../core/errors.js';
import type { CheckContext, CheckVerdict, GuardrailCheck } from '../check-types.js';
import { DEFAULT_TIMEOUT_MS, timeoutParameter } from './endpoint-parameters.js';
import { callEndpoint, parseAnswer } from './outbound-call.js';

type JwtParams = {
  jwksUri?: string;
  jwks?: JSONWebKeySet;
  headerKey?: string;
  algorithms?: string[];
  issuer?: string | string[];
  audience?: string | string[];
  clockTolerance?: number;
  maxTokenAge?: number;
  cacheMaxAge?: number;
  timeout?: number;
};

const DEFAULT_CACHE_MAX_AGE_S = 600;
/** A token naming an unknown key refetches the set (keys rotate), but at most this often, so random kids cannot hammer the endpoint. */
const REFETCH_COOLDOWN_MS = 30_000;
const URL_PARAM = 'parameters.jwksUri';

interface CachedKeySet {
  keys: Promise<JWTVerifyGetKey>;
  fetchedAt: number;
}

// Fetched key sets by URL; the promise is shared so concurrent requests fetch once.
const remoteKeySets = new LRUCache<string, CachedKeySet>({ max: 100 });

const stringOrList = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }] };

function fetchKeySet(url: string, params: JwtParams, context: CheckContext): CachedKeySet {
  const keys = callEndpoint(context, { url, param: URL_PARAM, method: 'GET', headers: { accept: 'application/json' }, timeoutMs: params.timeout ?? DEFAULT_TIMEOUT_MS })
    .then((body) => {
      try {
        return createLocalJWKSet(parseAnswer(body, URL_PARAM) as JSONWebKeySet);
      } catch (error) {
        if (error instanceof UpstreamError) throw error;
        throw new UpstreamError(502, `${URL_PARAM} answered something that is not a JSON Web Key Set`, 'guardrail_check_failed', { param: URL_PARAM });
      }
    });
  const entry = { keys, fetchedAt: context.now() };
  remoteKeySets.set(url, entry);
  // A failed fetch is not cached: the next request tries again.
  keys.catch(() => {
    if (remoteKeySets.get(url) === entry) remoteKeySets.delete(url);
  });
  return entry;
}

function cachedKeySet(url: string, params: JwtParams, context: CheckContext): CachedKeySet {
  const cached = remoteKeySets.get(url);
  const maxAgeMs = (params.cacheMaxAge ?? DEFAULT_CACHE_MAX_AGE_S) * 1000;
  if (cached && context.now() - cached.fetchedAt < maxAgeMs) return cached;
  return fetchKeySet(url, params, context);
}

/** The token in the header's value, with or without a Bearer scheme. */
function tokenOf(value: string | undefined): string | undefined {
  const token = value?.trim().replace(/^bearer\s+/i, '');
  return token ? token : undefined;
}

function verifyOptions(params: JwtParams, context: CheckContext): JWTVerifyOptions {
  return {
    issuer: params.issuer,
    audience: params.audience,
    algorithms: params.algorithms,
    clockTolerance: params.clockTolerance,
    maxTokenAge: params.maxTokenAge,
    currentDate: new Date(context.now()),
  };
}

function rejected(error: errors.JOSEError): CheckVerdict {
  return { verdict: false, explanation: `The token is not valid: ${error.message}`, data: { code: error.code } };
}

/**
 * Verifies the JWT in a request header (`headerKey`, default authorization; a Bearer prefix is
 * optional) against a key set: inline (`jwks`) or fetched from `jwksUri` and cached for
 * `cacheMaxAge` seconds. An invalid, expired or foreign token fails the check; an unreachable key
 * set throws.
 */
export const jwtCheck: GuardrailCheck<JwtParams> = {
  id: 'default.jwt',
  phases: ['input'],
  parametersSchema: {
    type: 'object',
    properties: {
      jwksUri: { type: 'string', minLength: 1, description: 'http(s) URL of a JSON Web Key Set.' },
      jwks: {
        type: 'object',
        properties: { keys: { type: 'array', minItems: 1, items: { type: 'object' } } },
        required: ['keys'],
        description: 'An inline JSON Web Key Set, instead of jwksUri.',
      },
      headerKey: { type: 'string', pattern: "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$", description: 'Header carrying the token. Default authorization.' },
      algorithms: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      issuer: stringOrList,
      audience: stringOrList,
      clockTolerance: { type: 'integer', minimum: 0, description: 'Seconds of clock skew allowed for exp and nbf.' },
      maxTokenAge: { type: 'integer', minimum: 1, description: 'Seconds since iat after which a token is too old.' },
      cacheMaxAge: { type: 'integer', minimum: 0, description: `Seconds a fetched key set is reused. Default ${DEFAULT_CACHE_MAX_AGE_S}.` },
      timeout: timeoutParameter,
    },
    additionalProperties: false,
  },
  assertParameters(params, param) {
    if ((params.jwksUri === undefined) === (params.jwks === undefined)) {
      throw new ValidationError(`${param} needs exactly one of jwksUri and jwks`, `${param}.jwksUri`);
    }
    if (!params.jwks) return;
    try {
      createLocalJWKSet(params.jwks);
    } catch (error) {
      throw new ValidationError(`${param}.jwks is not a valid JSON Web Key Set: ${(error as Error).message}`, `${param}.jwks`);
    }
  },
  async run(params, subject, context) {
    const headerKey = (params.headerKey ?? 'authorization').toLowerCase();
    const token = tokenOf(subject.headers[headerKey]);
    if (!token) return { verdict: false, explanation: `No token in the ${headerKey} header.`, data: { code: 'ERR_JWT_MISSING' } };
    const options = verifyOptions(params, context);
    const verify = async (keys: JWTVerifyGetKey): Promise<CheckVerdict> => {
      const { payload } = await jwtVerify(token, keys, options);
      return { verdict: true, explanation: 'The token is valid.', data: { sub: payload.sub ?? null, iss: payload.iss ?? null } };
    };
    try {
      if (params.jwks) return await verify(createLocalJWKSet(params.jwks));
      const url = params.jwksUri!;
      const cached = cachedKeySet(url, params, context);
      try {
        return await verify(await cached.keys);
      } catch (error) {
        const stale = context.now() - cached.fetchedAt >= REFETCH_COOLDOWN_MS;
        if (!(error instanceof errors.JWKSNoMatchingKey) || !stale) throw error;
        return await verify(await fetchKeySet(url, params, context).keys);
      }
    } catch (error) {
      if (error instanceof errors.JOSEError) return rejected(error);
      throw error;
    }
  },
};
