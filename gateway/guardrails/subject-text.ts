/**
 * The text guardrail checks read and may rewrite: the last user turn of a request, the first
 * choice's message of an answer. A message whose content is a list of parts is read as its text
 * parts joined by newlines; a rewrite replaces those text parts with one part.
 */
import type { ChatCompletion, ChatRequest } from '../providers/types.js';

type Message = ChatRequest['messages'][number];

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

function withText(content: unknown, text: string): unknown {
  if (!Array.isArray(content)) return text;
  const others = content.filter((part: { type?: string }) => part?.type !== 'text');
  return [{ type: 'text', text }, ...others];
}

function lastUserIndex(messages: Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) if ((messages[index]!.role as string) === 'user') return index;
  return -1;
}

export function requestText(request: ChatRequest): string {
  const index = lastUserIndex(request.messages);
  return index < 0 ? '' : contentText(request.messages[index]!.content);
}

export function completionText(completion: ChatCompletion): string {
  return contentText(completion.choices[0]?.message.content ?? '');
}

/** The request with its last user turn's text replaced (a copy; the original is left alone). */
export function withRequestText(request: ChatRequest, text: string): ChatRequest {
  const index = lastUserIndex(request.messages);
  if (index < 0) return request;
  const messages = request.messages.slice();
  messages[index] = { ...messages[index]!, content: withText(messages[index]!.content, text) } as Message;
  return { ...request, messages };
}

/** The completion with its first choice's text replaced (a copy). */
export function withCompletionText(completion: ChatCompletion, text: string): ChatCompletion {
  const [first, ...rest] = completion.choices;
  if (!first) return completion;
  return { ...completion, choices: [{ ...first, message: { ...first.message, content: text } }, ...rest] };
}
