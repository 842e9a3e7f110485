import type { GuardrailCheck } from '../check-types.js';
import { DEFAULT_TIMEOUT_MS, headersParameter, timeoutParameter } from './endpoint-parameters.js';
import { hookEvent } from './hook-event.js';
import { callEndpoint } from './outbound-call.js';

type LogParams = { logURL: string; headers?: Record<string, string>; timeout?: number };

/**
 * POSTs the hook event (pass-through details included) to `logURL` and always passes. A failed
 * delivery still throws, like any operational error, so failOnError decides what it means.
 */
export const logCheck: GuardrailCheck<LogParams> = {
  id: 'default.log',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      logURL: { type: 'string', minLength: 1, description: 'http(s) URL that receives the event; private addresses are refused unless trusted.' },
      headers: headersParameter,
      timeout: timeoutParameter,
    },
    required: ['logURL'],
    additionalProperties: false,
  },
  async run(params, subject, context) {
    await callEndpoint(context, {
      url: params.logURL,
      param: 'parameters.logURL',
      method: 'POST',
      headers: { ...params.headers, 'content-type': 'application/json' },
      body: JSON.stringify(hookEvent(subject, true)),
      timeoutMs: params.timeout ?? DEFAULT_TIMEOUT_MS,
    });
    return { verdict: true, explanation: 'The event was logged.' };
  },
};
