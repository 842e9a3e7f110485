/**
 * POST /v1/responses/compact on any provider: gw has no provider's native compaction to call, so it
 * asks the model (through the chat pipeline: selection, limits, guardrails, log and cost as for a
 * response) for a summary of the conversation, shown to it as a transcript. The answer keeps the
 * user's messages and ends with a `compaction` item whose content is the summary (base64 of a small
 * JSON, marked as gw's); sent back as input, gw reads it as a developer message with the summary.
 */
import { principalOf, type Call } from '../../core/call.js';
import { ApiError, ValidationError } from '../../core/errors.js';
import type { components } from '../../generated/types.js';
import { logRefusedChat } from '../chat/refused-chat-log.js';
import { runChat } from '../chat/run-chat.js';
import type { ChatCompletion, ChatRequest } from '../providers/types.js';
import { conversationOf, inputItemsOf, storedInputItems, type ChatMessage } from './chat-request.js';
import { compactionContent } from './compaction-item.js';
import { newItemId } from './ids.js';
import { loadInputFiles } from './input-files.js';
import { responseUsage } from './response-object.js';
import type { CreateResponseRequest } from './wire.js';

type CompactRequest = components['schemas']['CompactResponseRequest'];
type Compaction = components['schemas']['ResponseCompaction'];

const INSTRUCTION =
  'Summarise the conversation below for whoever continues it: the goal, the decisions and facts agreed, the work done (commands run, files changed, tool results that matter) and what is left to do. Keep names, numbers and identifiers exactly. Write only the summary.';
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: string; text?: string }) => part.text ?? `[${part.type ?? 'part'}]`).join('');
}

/** The conversation as one text the model reads (no tool-call pairing or media rules to meet). */
export function transcriptOf(messages: readonly ChatMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const text = partsText((message as { content?: unknown }).content);
    if (message.role === 'tool') lines.push(`[tool result ${message.tool_call_id}]\n${text}`);
    else if (text) lines.push(`[${message.role}]\n${text}`);
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) if (call.type === 'function') lines.push(`[assistant called ${call.function.name} (${call.id})]\n${call.function.arguments}`);
  }
  return lines.join('\n\n');
}

async function conversationFor(call: Call, request: CompactRequest): Promise<{ conversation: ChatMessage[]; items: ReturnType<typeof inputItemsOf> }> {
  const items = inputItemsOf(request as CreateResponseRequest);
  let history: ChatMessage[] = [];
  if (request.previous_response_id) {
    const stored = await call.services.store.responses.get(principalOf(call).gatewayWorkspaceId, request.previous_response_id);
    if (!stored) throw new ValidationError(`Previous response with id '${request.previous_response_id}' not found.`, 'previous_response_id', 'previous_response_not_found');
    history = stored.history;
  }
  const conversation = conversationOf(history, items, await loadInputFiles(call, items));
  if (conversation.length === 0) throw new ValidationError('input is required (or a previous_response_id): there is nothing to compact.', 'input');
  return { conversation, items };
}

export async function runCompaction(call: Call, request: CompactRequest): Promise<{ body: Compaction; status: number; headers: Record<string, string> }> {
  let prepared;
  try {
    prepared = await conversationFor(call, request);
  } catch (error) {
    if (error instanceof ApiError) logRefusedChat(call, request, error, 'responses');
    throw error;
  }
  const context = request.instructions ? `The assistant worked under these instructions:\n${request.instructions}\n\n` : '';
  const chat: ChatRequest = {
    model: request.model,
    messages: [
      { role: 'system', content: INSTRUCTION },
      { role: 'user', content: `${context}<conversation>\n${transcriptOf(prepared.conversation)}\n</conversation>` },
    ],
  };
  const result = await runChat(call, chat, { endpoint: 'responses' });
  const completion = result.completion as ChatCompletion;
  const summary = completion.choices[0]?.message.content ?? '';
  // The user's own messages stay as they were; everything else is in the summary.
  const kept = storedInputItems(prepared.items).filter((item) => item.type === 'message' && item.role === 'user');
  const output = [...kept, { type: 'compaction' as const, id: newItemId('cmp'), encrypted_content: compactionContent(summary) }];
  const body: Compaction = { id: newItemId('resp'), object: 'response.compaction', created_at: Math.floor(call.startedAt / 1000), output: output as Compaction['output'], usage: responseUsage(completion.usage) };
  return { body, status: result.status, headers: result.headers };
}
