/**
 * A Responses request as the chat request the pipeline runs: `instructions` the system message,
 * then the conversation of `previous_response_id`, then this request's input items as chat
 * messages (function_call items the assistant's tool_calls, function_call_output items tool
 * messages, reasoning items dropped), with tools, tool_choice, text.format, reasoning and the
 * sampling settings in their chat names.
 */
import type { ChatRequest } from '../providers/types.js';
import { newItemId } from './ids.js';
import type { CreateResponseRequest, InputItem, StoredInputItem } from './wire.js';

export type ChatMessage = ChatRequest['messages'][number];
type InputPart = { type: string; text?: string; image_url?: string | null; detail?: string; refusal?: string };

function textOf(content: string | InputPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? part.refusal ?? '').join('');
}

function userContent(content: string | InputPart[]): ChatMessage['content'] {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'input_image'
      ? { type: 'image_url' as const, image_url: { url: part.image_url ?? '', ...(part.detail ? { detail: part.detail as 'auto' } : {}) } }
      : { type: 'text' as const, text: part.text ?? '' },
  ) as ChatMessage['content'];
}

/** The request's input as chat messages appended to `messages`. */
function appendInput(messages: ChatMessage[], items: readonly InputItem[]): void {
  for (const item of items) {
    if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      // Parallel calls arrive as consecutive items: they belong to one assistant message.
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
    } else if (item.type === 'reasoning') {
      continue;
    } else if (item.role === 'user') {
      messages.push({ role: 'user', content: userContent(item.content as string | InputPart[]) } as ChatMessage);
    } else {
      messages.push({ role: item.role, content: textOf(item.content as string | InputPart[]) } as ChatMessage);
    }
  }
}

export function inputItemsOf(request: CreateResponseRequest): InputItem[] {
  if (request.input === undefined) return [];
  return typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
}

/** The input items as stored for input_items: messages with content parts, every item with an id. */
export function storedInputItems(items: readonly InputItem[]): StoredInputItem[] {
  return items.map((item) => {
    if (item.type === 'function_call') return { ...item, id: item.id ?? newItemId('fc'), status: item.status ?? 'completed' };
    if (item.type === 'function_call_output') return { ...item, id: item.id ?? newItemId('fco'), status: item.status ?? 'completed' };
    if (item.type === 'reasoning') return { ...item, id: item.id ?? newItemId('rs') };
    const content = typeof item.content === 'string' ? [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }] : item.content;
    return { type: 'message', id: item.id ?? newItemId('msg'), status: 'completed', role: item.role, content };
  }) as StoredInputItem[];
}

/** The conversation before this request's answer: what came before and this input (no instructions). */
export function conversationOf(history: readonly ChatMessage[], items: readonly InputItem[]): ChatMessage[] {
  const messages = structuredClone(history) as ChatMessage[];
  appendInput(messages, items);
  return messages;
}

export function chatRequestOf(request: CreateResponseRequest, conversation: readonly ChatMessage[]): ChatRequest {
  const messages: ChatMessage[] = request.instructions ? [{ role: 'system', content: request.instructions }, ...conversation] : [...conversation];
  const chat: ChatRequest = { model: request.model, messages };
  if (request.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (request.tools?.length) {
    chat.tools = request.tools.map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        ...(tool.parameters ? { parameters: tool.parameters } : {}),
        ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
      },
    }));
    if (typeof request.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = request.parallel_tool_calls;
  }
  const choice = request.tool_choice;
  if (choice !== undefined && (chat.tools || typeof choice === 'string')) {
    chat.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  }
  const format = request.text?.format;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    chat.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.description ? { description: format.description } : {}), ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}) },
    };
  }
  if (request.reasoning?.effort) chat.reasoning_effort = request.reasoning.effort;
  if (request.thinking) chat.thinking = request.thinking;
  if (request.mock_response !== undefined) chat.mock_response = request.mock_response;
  if (typeof request.max_output_tokens === 'number') chat.max_completion_tokens = request.max_output_tokens;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (request.user) chat.user = request.user;
  return chat;
}
