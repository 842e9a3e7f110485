/**
 * The upstream body for OpenAI and compatible hosts. The request already passed the spec's
 * schema; this only applies each host's documented rules:
 * - `thinking` is never sent (OpenAI-style APIs take `reasoning_effort`; they reject `thinking`);
 * - `cache_control` hints on content parts and tools are dropped (Anthropic-only);
 * - `stream_options` goes only with `stream: true`, and asks for usage so the log always has it;
 * - hosts that only know `max_tokens` get `max_completion_tokens` under that name;
 * - fields a host rejects (its `dropFields`) are dropped, renamed ones renamed.
 */
import type { ChatRequest } from '../types.js';

export interface BodyRules {
  maxTokensOnly: boolean;
  dropFields: readonly string[];
  renameFields: Readonly<Record<string, string>>;
  streamOptions: boolean;
}

type Json = Record<string, unknown>;

function withoutCacheControl<T>(items: T[]): T[] {
  if (!items.some((item) => item && typeof item === 'object' && 'cache_control' in item)) return items;
  return items.map((item) => {
    if (!item || typeof item !== 'object' || !('cache_control' in item)) return item;
    const { cache_control: _dropped, ...rest } = item as Json;
    return rest as T;
  });
}

function messagesWithoutCacheControl(messages: ChatRequest['messages']): ChatRequest['messages'] {
  let changed = false;
  const out = messages.map((message) => {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) return message;
    const stripped = withoutCacheControl(content);
    if (stripped === content) return message;
    changed = true;
    return { ...message, content: stripped } as typeof message;
  });
  return changed ? out : messages;
}

export function openAiCompatibleBody(request: ChatRequest, stream: boolean, rules: BodyRules): Json {
  const body: Json = { ...request };
  delete body.thinking;
  body.messages = messagesWithoutCacheControl(request.messages);
  if (Array.isArray(request.tools)) body.tools = withoutCacheControl(request.tools);
  if (stream) {
    body.stream = true;
    if (rules.streamOptions) body.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
    else delete body.stream_options;
  } else {
    delete body.stream;
    delete body.stream_options;
  }
  if (rules.maxTokensOnly && body.max_completion_tokens != null) {
    body.max_tokens ??= body.max_completion_tokens;
    delete body.max_completion_tokens;
  }
  for (const field of rules.dropFields) delete body[field];
  for (const [from, to] of Object.entries(rules.renameFields)) {
    if (body[from] !== undefined) {
      body[to] = body[from];
      delete body[from];
    }
  }
  return body;
}
