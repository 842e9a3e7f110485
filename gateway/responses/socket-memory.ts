/**
 * What a Responses WebSocket remembers between its responses: the conversation of its most recent
 * response (input and output), so a `previous_response_id` continues it even with `store: false`.
 * Kept per socket (keyed by the upgrade request every call on it shares), gone with the socket;
 * one entry, as OpenAI's WebSocket mode keeps only the latest response on the connection.
 */
import type { IncomingMessage } from 'node:http';
import type { ChatMessage } from './chat-request.js';

export interface SocketMemory {
  latest?: { id: string; history: ChatMessage[] };
}

const memories = new WeakMap<IncomingMessage, SocketMemory>();

/** Gives the socket of this upgrade request its memory (the WebSocket door calls this once per socket). */
export function rememberOnSocket(req: IncomingMessage): void {
  memories.set(req, {});
}

/** The memory of the socket a call came on; undefined for an HTTP call. */
export function socketMemoryOf(req: IncomingMessage): SocketMemory | undefined {
  return memories.get(req);
}
