/**
 * One HTTP call from a check to a user-supplied endpoint (webhook, log collector, JWKS). The URL
 * is vetted against private addresses first; the call is bounded by a timeout; redirects are not
 * followed (the target of a redirect was never vetted). Every failure throws, for the runner's
 * failOnError to decide.
 */
import { ApiError, UpstreamError } from '../../../core/errors.js';
import type { CheckContext } from '../check-types.js';

export interface OutboundCall {
  url: string;
  /** The parameter the URL came from, named in errors: `parameters.webhookURL`. */
  param: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** Sends the call and returns the answer's body text; throws ApiError for a refused URL, a timeout, a network error or a non-2xx answer. */
export async function callEndpoint(context: CheckContext, call: OutboundCall): Promise<string> {
  const url = await context.vetUrl(call.url, call.param);
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = context.signal ? AbortSignal.any([timeout, context.signal]) : timeout;
  try {
    const response = await context.fetch(url.href, { method: call.method, headers: call.headers, body: call.body, signal, redirect: 'manual' });
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel();
      const why = response.status >= 300 && response.status < 400 ? ', a redirect, which gw does not follow' : '';
      throw new UpstreamError(502, `${call.param} answered HTTP ${response.status}${why}`, 'guardrail_check_failed', { param: call.param });
    }
    return await response.text();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (timeout.aborted) {
      throw new ApiError(504, 'guardrail_check_timeout', `${call.param} did not answer within ${call.timeoutMs} ms`, 'timeout_error', { param: call.param, cause: error });
    }
    if (context.signal?.aborted) throw error;
    throw new UpstreamError(502, `${call.param} could not be reached: ${(error as Error).message}`, 'guardrail_check_failed', { param: call.param, cause: error });
  }
}

/** Parses an endpoint's answer as JSON, or throws naming the endpoint. */
export function parseAnswer(body: string, param: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new UpstreamError(502, `${param} answered with a body that is not JSON`, 'guardrail_check_failed', { param });
  }
}
