import { UpstreamError } from '../../../core/errors.js';
import type { CheckSubject, CheckVerdict, GuardrailCheck } from '../check-types.js';
import { checkForwardHeaders } from '../forward-headers.js';
import { DEFAULT_TIMEOUT_MS, headersParameter, timeoutParameter } from './endpoint-parameters.js';
import { hookEvent } from './hook-event.js';
import { callEndpoint, parseAnswer } from './outbound-call.js';

type WebhookParams = {
  webhookURL: string;
  headers?: Record<string, string>;
  forwardHeaders?: string[];
  timeout?: number;
  executeOnProxy?: boolean;
};

/** What the webhook must answer: `{verdict, data?, transformedData?: {text}}`. */
interface WebhookAnswer {
  verdict: boolean;
  data?: unknown;
  transformedData?: { text: string };
}

const URL_PARAM = 'parameters.webhookURL';

function asAnswer(answer: unknown): WebhookAnswer {
  const candidate = answer as Partial<WebhookAnswer> | null;
  if (!candidate || typeof candidate !== 'object' || typeof candidate.verdict !== 'boolean') {
    throw new UpstreamError(502, `${URL_PARAM} answered without a boolean verdict`, 'guardrail_check_failed', { param: URL_PARAM });
  }
  const transformed = candidate.transformedData;
  if (transformed !== undefined && transformed !== null && typeof (transformed as { text?: unknown }).text !== 'string') {
    throw new UpstreamError(502, `${URL_PARAM} answered transformedData without a text string`, 'guardrail_check_failed', { param: URL_PARAM });
  }
  return candidate as WebhookAnswer;
}

function forwarded(subject: CheckSubject, names: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = subject.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/**
 * POSTs the hook event to `webhookURL` and takes the verdict from the answer; `transformedData.text`
 * replaces the text under check. Pass-through (/v1/*) requests reach the webhook only with
 * `executeOnProxy`, and then it also receives their method, path and content type.
 */
export const webhookCheck: GuardrailCheck<WebhookParams> = {
  id: 'default.webhook',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      webhookURL: { type: 'string', minLength: 1, description: 'http(s) URL that receives the event; private addresses are refused unless trusted.' },
      headers: headersParameter,
      forwardHeaders: { type: 'array', items: { type: 'string' }, description: 'Incoming request headers to pass on; credentials, metadata, routing and hop-by-hop headers are refused.' },
      timeout: timeoutParameter,
      executeOnProxy: { type: 'boolean', description: 'Also run on /v1/* pass-through requests. Default false.' },
    },
    required: ['webhookURL'],
    additionalProperties: false,
  },
  assertParameters(params, param) {
    checkForwardHeaders(params.forwardHeaders, `${param}.forwardHeaders`);
  },
  async run(params, subject, context): Promise<CheckVerdict> {
    if (subject.requestType === 'proxy' && params.executeOnProxy !== true) {
      return { verdict: true, explanation: 'Skipped: a pass-through request, and executeOnProxy is not set.', data: { skipped: true } };
    }
    const names = checkForwardHeaders(params.forwardHeaders, 'parameters.forwardHeaders');
    const body = await callEndpoint(context, {
      url: params.webhookURL,
      param: URL_PARAM,
      method: 'POST',
      headers: { ...forwarded(subject, names), ...params.headers, 'content-type': 'application/json' },
      body: JSON.stringify(hookEvent(subject, params.executeOnProxy === true)),
      timeoutMs: params.timeout ?? DEFAULT_TIMEOUT_MS,
    });
    const answer = asAnswer(parseAnswer(body, URL_PARAM));
    const result: CheckVerdict = { verdict: answer.verdict, explanation: `The webhook ${answer.verdict ? 'passed' : 'failed'} the ${subject.phase}.` };
    if (answer.data !== undefined) result.data = answer.data;
    if (answer.transformedData) result.transformedText = answer.transformedData.text;
    return result;
  },
};
