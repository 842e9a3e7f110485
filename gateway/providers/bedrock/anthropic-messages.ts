/**
 * Claude on Bedrock through InvokeModel and InvokeModelWithResponseStream, whose body is Anthropic's
 * Messages body without `model` and `stream`, with `anthropic_version: bedrock-2023-05-31` and the
 * beta flags as an `anthropic_beta` list. The stream's `chunk` events each carry one Anthropic
 * stream event (base64 JSON): decoded here into Anthropic's server-sent events, so the Messages
 * door relays them as Anthropic would have sent them. An exception frame becomes an `error` event.
 */
import type { Message } from '@smithy/eventstream-codec';
import type { MessagesContext, MessagesStreamDecoder } from '../types.js';
import { streamExceptionError } from './errors.js';
import { EventStreamFrames } from './event-stream-frames.js';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** Bedrock model ids (and inference profiles, ARNs) of Anthropic's models. */
export function isAnthropicModel(modelId: string): boolean {
  return /(^|[./:])anthropic\./.test(modelId);
}

export function invokeBody(context: MessagesContext): Record<string, unknown> {
  const { model: _model, stream: _stream, ...body } = context.body;
  const betas = context.headers['anthropic-beta']
    ?.split(',')
    .map((flag) => flag.trim())
    .filter(Boolean);
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...body, ...(betas?.length ? { anthropic_beta: betas } : {}) };
}

function header(message: Message, name: string): string | undefined {
  const value = message.headers[name]?.value;
  return typeof value === 'string' ? value : undefined;
}

function sse(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

function anthropicErrorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 400) return 'invalid_request_error';
  if (status === 503) return 'overloaded_error';
  return 'api_error';
}

export class InvokeStreamDecoder implements MessagesStreamDecoder {
  private readonly frames = new EventStreamFrames();

  push(bytes: Uint8Array): Uint8Array {
    let out = '';
    for (const message of this.frames.push(bytes)) {
      const payload = new TextDecoder().decode(message.body);
      if ((header(message, ':message-type') ?? 'event') !== 'event') {
        const exception = header(message, ':exception-type') ?? header(message, ':error-code') ?? 'exception';
        const failure = streamExceptionError(exception, safeJson(payload));
        out += sse('error', JSON.stringify({ type: 'error', error: { type: anthropicErrorType(failure.status), message: failure.message } }));
        continue;
      }
      if (header(message, ':event-type') !== 'chunk') continue;
      const event = Buffer.from(String((safeJson(payload) as { bytes?: unknown } | undefined)?.bytes ?? ''), 'base64').toString('utf8');
      const type = (safeJson(event) as { type?: unknown } | undefined)?.type;
      out += sse(typeof type === 'string' ? type : 'unknown', event);
    }
    return Buffer.from(out);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
