/**
 * A Responses request as the chat request the pipeline runs: `instructions` the system message,
 * then the conversation of `previous_response_id`, then this request's input items as chat
 * messages (function and custom tool call items the assistant's tool_calls, their outputs tool
 * messages, reasoning items and hosted tools' call items dropped, input_file parts documents or
 * text), with the tools (tools.ts), tool_choice, text.format, reasoning and the sampling settings
 * in their chat names.
 */
import type { ChatRequest } from '../providers/types.js';
import { newItemId } from './ids.js';
import { summaryOfCompaction } from './compaction-item.js';
import { chatFilePart, type InputFilePart, type LoadedFiles } from './input-files.js';
import { approvedCallId } from './gw-tools.js';
import { chatCallOf, chatToolChoice, chatToolName, type ToolPlan } from './tools.js';
import type { CreateResponseRequest, InputItem, StoredInputItem, ToolOutput } from './wire.js';

export type ChatMessage = ChatRequest['messages'][number];
type InputPart = { type: string; text?: string; image_url?: string | null; detail?: string; refusal?: string };

function textOf(content: string | InputPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? part.refusal ?? '').join('');
}

function userContent(content: string | InputPart[], files: LoadedFiles, param: string): ChatMessage['content'] {
  if (typeof content === 'string') return content;
  return content.map((part, index) => {
    if (part.type === 'input_image') return { type: 'image_url' as const, image_url: { url: part.image_url ?? '', ...(part.detail ? { detail: part.detail as 'auto' } : {}) } };
    if (part.type === 'input_file') return chatFilePart(part as InputFilePart, files, `${param}.content[${index}]`);
    return { type: 'text' as const, text: part.text ?? '' };
  }) as ChatMessage['content'];
}

/** A tool's output as the tool message's text: content parts give their text, other parts their type. */
function toolOutputText(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  return output.map((part) => part.text ?? `[${part.type}]`).join('');
}

type McpItem = { type: 'mcp_call' | 'mcp_approval_request'; id: string; name: string; server_label: string; arguments: string; output?: string | null; error?: unknown };

/**
 * An MCP call gw ran (resent whole, without previous_response_id) as the assistant's call and its
 * output; an approval request as the call still waiting (an mcp_approval_response answers it).
 */
function appendMcpItem(messages: ChatMessage[], item: McpItem): void {
  const id = item.type === 'mcp_approval_request' ? (approvedCallId(item.id) ?? item.id) : item.id;
  const call = { id, type: 'function' as const, function: { name: chatToolName(item.name, item.server_label), arguments: item.arguments } };
  const last = messages.at(-1);
  if (last?.role === 'assistant' && last.tool_calls?.length) last.tool_calls = [...last.tool_calls, call];
  else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  if (item.type === 'mcp_call') messages.push({ role: 'tool', tool_call_id: id, content: item.output ?? (typeof item.error === 'string' ? item.error : JSON.stringify(item.error ?? '')) });
}

/** The request's input as chat messages appended to `messages`. */
function appendInput(messages: ChatMessage[], items: readonly InputItem[], files: LoadedFiles): void {
  items.forEach((item, index) => {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const call = chatCallOf(item);
      const last = messages.at(-1);
      // Parallel calls arrive as consecutive items: they belong to one assistant message.
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: toolOutputText(item.output) });
    } else if (item.type === 'compaction') {
      // gw's own compaction: its summary goes on as context; anyone else's is opaque here.
      const summary = summaryOfCompaction((item as { encrypted_content?: unknown }).encrypted_content);
      if (summary !== undefined) messages.push({ role: 'developer', content: `Summary of the conversation so far:\n${summary}` });
    } else if (item.type === 'mcp_call' || item.type === 'mcp_approval_request') {
      appendMcpItem(messages, item as unknown as McpItem);
    } else if (item.type && item.type !== 'message') {
      // Reasoning and hosted tools' call items: nothing a chat provider can be shown.
      return;
    } else if ('role' in item && item.role === 'user') {
      messages.push({ role: 'user', content: userContent(item.content as string | InputPart[], files, `input[${index}]`) } as ChatMessage);
    } else if ('role' in item) {
      messages.push({ role: item.role, content: textOf(item.content as string | InputPart[]) } as ChatMessage);
    }
  });
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
    if (item.type === 'custom_tool_call') return { ...item, id: item.id ?? newItemId('ctc') };
    if (item.type === 'custom_tool_call_output') return { ...item, id: item.id ?? newItemId('ctco') };
    if (item.type === 'reasoning') return { ...item, id: item.id ?? newItemId('rs') };
    if (item.type && item.type !== 'message') return { ...item, id: (item as { id?: string }).id ?? newItemId('msg') };
    if (!('role' in item)) return item;
    const content = typeof item.content === 'string' ? [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }] : item.content;
    return { type: 'message', id: item.id ?? newItemId('msg'), status: 'completed', role: item.role, content };
  }) as StoredInputItem[];
}

/** The conversation before this request's answer: what came before and this input (no instructions). */
export function conversationOf(history: readonly ChatMessage[], items: readonly InputItem[], files: LoadedFiles = new Map()): ChatMessage[] {
  const messages = structuredClone(history) as ChatMessage[];
  appendInput(messages, items, files);
  return messages;
}

export function chatRequestOf(request: CreateResponseRequest, conversation: readonly ChatMessage[], tools: ToolPlan): ChatRequest {
  const messages: ChatMessage[] = request.instructions ? [{ role: 'system', content: request.instructions }, ...conversation] : [...conversation];
  const chat: ChatRequest = { model: request.model, messages };
  if (request.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (tools.chatTools.length) {
    chat.tools = tools.chatTools;
    if (typeof request.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = request.parallel_tool_calls;
  }
  const choice = request.tool_choice == null ? undefined : chatToolChoice(request.tool_choice, tools);
  // A choice with no tool left to choose from (only hosted ones were offered) is not sent.
  if (choice !== undefined && (chat.tools || (typeof choice === 'string' && tools.omitted.length === 0))) chat.tool_choice = choice;
  const format = request.text?.format;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    chat.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.description ? { description: format.description } : {}), ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}) },
    };
  }
  // OpenAI's newer levels (none, xhigh) go on as they are: the adapters pass or refuse them as on chat.
  if (request.reasoning?.effort) chat.reasoning_effort = request.reasoning.effort as ChatRequest['reasoning_effort'];
  if (request.thinking) chat.thinking = request.thinking;
  if (request.mock_response !== undefined) chat.mock_response = request.mock_response;
  if (typeof request.max_output_tokens === 'number') chat.max_completion_tokens = request.max_output_tokens;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (typeof request.presence_penalty === 'number') chat.presence_penalty = request.presence_penalty;
  if (typeof request.frequency_penalty === 'number') chat.frequency_penalty = request.frequency_penalty;
  if (request.user) chat.user = request.user;
  return chat;
}
