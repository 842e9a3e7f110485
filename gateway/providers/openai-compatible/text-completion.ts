/**
 * The legacy completions endpoint on the OpenAI wire (`POST <base>/completions`), for OpenAI,
 * Azure OpenAI and the compatible hosts. Answers are read as chat completions (each choice's
 * `text` as the message content) so the gateway's pipeline stays chat-shaped; the handler turns
 * them back into `text_completion` objects.
 */
import type { ChatCompletion, CompletionRequest } from '../types.js';
import type { BodyRules } from './request-body.js';
import { normalizeCompletion } from './normalize.js';

type Json = Record<string, unknown>;

export function textCompletionBody(request: CompletionRequest, stream: boolean, rules: BodyRules): Json {
  const body: Json = { ...request, stream };
  if (!stream) delete body.stream_options;
  else if (rules.streamOptions) body.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
  for (const field of rules.dropFields) delete body[field];
  for (const [from, to] of Object.entries(rules.renameFields)) {
    if (from in body) {
      body[to] = body[from];
      delete body[from];
    }
  }
  return body;
}

function textChoiceToMessage(choice: Json): Json {
  const { text, ...rest } = choice;
  return { ...rest, logprobs: null, message: { role: 'assistant', content: typeof text === 'string' ? text : '' } };
}

function textChoiceToDelta(choice: Json): Json {
  const { text, ...rest } = choice;
  return { ...rest, logprobs: null, delta: typeof text === 'string' && text !== '' ? { content: text } : {} };
}

export function textCompletionToChat(body: unknown, fallback: { id: string; created: number; model: string }, strict: boolean): ChatCompletion {
  const json = (body ?? {}) as Json;
  const choices = Array.isArray(json.choices) ? (json.choices as Json[]) : [];
  return normalizeCompletion({ ...json, object: 'chat.completion', choices: choices.map(textChoiceToMessage) }, fallback, strict);
}

/** One streamed `text_completion` event as a chat chunk event. */
export function textChunkToChat(event: Json): Json {
  const choices = Array.isArray(event.choices) ? (event.choices as Json[]) : event.choices;
  return { ...event, object: 'chat.completion.chunk', choices: Array.isArray(choices) ? choices.map(textChoiceToDelta) : choices };
}
