/**
 * The semantic cache compares the request's last user turn by meaning and everything else exactly.
 * This splits a request into that turn's text and the request with the turn blanked out.
 */
export interface SplitRequest {
  text: string;
  rest: Record<string, unknown>;
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter((part) => part?.type === 'text' && typeof part.text === 'string').map((part) => part.text as string);
  // A turn carrying images or files is not comparable by its text alone.
  return parts.length === content.length && parts.length > 0 ? parts.join('\n') : undefined;
}

export function splitLastUserTurn(request: Record<string, unknown>): SplitRequest | undefined {
  const messages = request.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as { role?: unknown; content?: unknown };
    if (message?.role !== 'user') continue;
    const text = textOf(message.content);
    if (text === undefined || text.trim() === '') return undefined;
    const rest = { ...request, messages: messages.map((item, at) => (at === index ? { role: 'user', content: null } : item)) };
    return { text, rest };
  }
  return undefined;
}
