/** One POST to a token endpoint (form or JSON), answering its access token and lifetime; failures name the endpoint, never a secret. */
import { AnswerTooLargeError } from '../outbound/answer-cap.js';
import { ApiError } from '../../core/errors.js';
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import type { ExpiringToken } from '../outbound/token-cache.js';

export function credentialUnavailable(what: string, reason: string): ApiError {
  return new ApiError(502, 'provider_credential_unavailable', `${what} could not issue a token: ${reason}`, 'upstream_error');
}

export interface TokenCall {
  fetch: GuardedFetch;
  now: () => number;
  timeoutMs: number;
}

export async function requestToken(
  call: TokenCall,
  what: string,
  url: string,
  init: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> },
  fields: { token: string; expiresIn?: string; expireTime?: string } = { token: 'access_token', expiresIn: 'expires_in' },
): Promise<ExpiringToken<string>> {
  let response: Response;
  try {
    response = await call.fetch(url, {
      method: 'POST',
      headers: { ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : { 'content-type': 'application/json' }), accept: 'application/json', ...init.headers },
      body: init.form ? new URLSearchParams(init.form).toString() : JSON.stringify(init.json),
      signal: AbortSignal.timeout(call.timeoutMs),
    });
  } catch (error) {
    if (error instanceof ApiError) throw credentialUnavailable(what, error.message);
    throw credentialUnavailable(what, `it could not be reached (${(error as { code?: string }).code ?? (error as Error).name})`);
  }
  if (response.status < 200 || response.status >= 300) {
    await response.body?.cancel();
    throw credentialUnavailable(what, `it answered HTTP ${response.status}`);
  }
  let answer: Record<string, unknown>;
  try {
    answer = (await response.json()) as Record<string, unknown>;
  } catch (error) {
    throw credentialUnavailable(what, error instanceof AnswerTooLargeError ? error.message : 'it did not answer JSON');
  }
  const token = answer?.[fields.token];
  if (typeof token !== 'string' || token === '') throw credentialUnavailable(what, `it answered no ${fields.token}`);
  let expiresAt: number | undefined;
  const expiresIn = fields.expiresIn ? Number(answer[fields.expiresIn]) : NaN;
  if (Number.isFinite(expiresIn) && expiresIn > 0) expiresAt = call.now() + expiresIn * 1000;
  const expireTime = fields.expireTime ? Date.parse(String(answer[fields.expireTime])) : NaN;
  if (Number.isFinite(expireTime)) expiresAt = expireTime;
  return { value: token, expiresAt };
}
