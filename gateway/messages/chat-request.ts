/**
 * A Messages request as the chat request the pipeline runs (and, at a target without Anthropic's
 * wire, sends): `system` the first system message, user blocks content parts (text; images as
 * image_url data or https URLs; PDF documents as file parts, text documents as text), tool_result
 * blocks tool messages placed before the rest of their turn, assistant tool_use blocks tool_calls,
 * thinking blocks dropped (a chat provider cannot check their signatures), tools and tool_choice in
 * their chat form, thinking as both reasoning_effort and chat's `thinking` (each target keeps the
 * one its provider takes), stop_sequences as stop, metadata.user_id as user, max_tokens as max_completion_tokens.
 */
import type { ChatRequest } from '../providers/types.js';
import type { Block, InputMessage, MessagesRequest, Tool } from './wire.js';

/**
 * What the chat form cannot say, by field. Nothing is refused here: a target on Anthropic's wire
 * takes the body as it came; any other target refuses the request with the first of these.
 */
export interface Untranslatable {
  param: string;
  what: string;
}

/** Where translation notes what it had to leave out. */
type Notes = Untranslatable[];

type ChatMessage = ChatRequest['messages'][number];
type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } } | { type: 'file'; file: { file_data: string; filename?: string } };

function textOf(content: string | Block[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

function dataUrl(source: NonNullable<Block['source']>): string {
  return `data:${source.media_type ?? 'application/octet-stream'};base64,${source.data ?? ''}`;
}

function partOf(block: Block, at: string, notes: Notes): Part | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text ?? '' };
    case 'image': {
      const source = block.source ?? {};
      if (source.type === 'base64') return { type: 'image_url', image_url: { url: dataUrl(source) } };
      if (source.type === 'url' && source.url) return { type: 'image_url', image_url: { url: source.url } };
      notes.push({ param: `${at}.source`, what: `an image source of type ${String(source.type)}` });
      return undefined;
    }
    case 'document': {
      const source = block.source ?? {};
      if (source.type === 'base64') return { type: 'file', file: { file_data: dataUrl(source), ...(block.title ? { filename: block.title } : {}) } };
      if (source.type === 'text') return { type: 'text', text: source.data ?? '' };
      if (source.type === 'content') return { type: 'text', text: textOf(source.content as Block[]) };
      notes.push({ param: `${at}.source`, what: `a document source of type ${String(source.type)}` });
      return undefined;
    }
    case 'thinking':
    case 'redacted_thinking':
      return undefined;
    default:
      notes.push({ param: `${at}.type`, what: `a ${block.type} content block` });
      return undefined;
  }
}

/** A tool_result's content: text for the tool message, images (which tool messages cannot carry) for a user message after it. */
function toolResult(block: Block, at: string, notes: Notes): { text: string; images: Part[] } {
  const content = block.content;
  if (content === undefined || typeof content === 'string') return { text: (block.is_error ? 'Error: ' : '') + (content ?? ''), images: [] };
  const images: Part[] = [];
  const texts: string[] = [];
  content.forEach((inner, i) => {
    const part = inner.type === 'image' ? partOf(inner, `${at}.content[${i}]`, notes) : undefined;
    if (part) images.push(part);
    // A tool search's answer: the tool is offered from here on (referencedTools).
    else if (inner.type === 'tool_reference') texts.push(`Tool ${String(inner.tool_name)} loaded.`);
    else texts.push(textOf([inner]));
  });
  return { text: (block.is_error ? 'Error: ' : '') + texts.join('\n'), images };
}

function userMessages(content: string | Block[], at: string, notes: Notes): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const tools: ChatMessage[] = [];
  const parts: Part[] = [];
  content.forEach((block, i) => {
    if (block.type === 'tool_result') {
      const result = toolResult(block, `${at}[${i}]`, notes);
      tools.push({ role: 'tool', tool_call_id: block.tool_use_id ?? '', content: result.text });
      parts.push(...result.images);
    } else {
      const part = partOf(block, `${at}[${i}]`, notes);
      if (part) parts.push(part);
    }
  });
  // Tool results answer the assistant's calls: they come first, the rest of the turn after.
  if (parts.length === 0) return tools;
  const onlyText = parts.every((part) => part.type === 'text');
  const message = { role: 'user', content: onlyText ? parts.map((part) => (part as { text: string }).text).join('\n') : parts } as ChatMessage;
  return [...tools, message];
}

function assistantMessage(content: string | Block[], at: string, notes: Notes): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  content.forEach((block, i) => {
    if (block.type === 'text') texts.push(block.text ?? '');
    else if (block.type === 'tool_use') calls.push({ id: block.id ?? '', type: 'function', function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) } });
    else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') notes.push({ param: `${at}[${i}].type`, what: `a ${block.type} content block` });
  });
  const message: ChatMessage = { role: 'assistant', content: texts.length ? texts.join('') : null };
  if (calls.length) (message as { tool_calls?: unknown }).tool_calls = calls;
  return message;
}

function conversation(request: MessagesRequest, notes: Notes): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const system = typeof request.system === 'string' ? request.system : textOf(request.system as Block[] | undefined);
  if (system) messages.push({ role: 'system', content: system });
  (request.messages as InputMessage[]).forEach((message, i) => {
    const at = `messages[${i}].content`;
    if (message.role === 'user') messages.push(...userMessages(message.content, at, notes));
    else if (message.role === 'assistant') messages.push(assistantMessage(message.content, at, notes));
    // A system turn mid-conversation (Anthropic's beta): a system message where it stands.
    else if (message.role === 'system') messages.push({ role: 'system', content: textOf(message.content) });
    else notes.push({ param: `messages[${i}].role`, what: `the role ${message.role}` });
  });
  return messages;
}

/** Anthropic's budget (thinking.budget_tokens) or effort (output_config.effort) as chat's reasoning_effort. */
function reasoningEffort(request: MessagesRequest): ChatRequest['reasoning_effort'] | undefined {
  const thinking = request.thinking as { type?: string; budget_tokens?: number } | undefined;
  const effort = (request.output_config as { effort?: string } | undefined)?.effort;
  if (thinking?.type === 'disabled') return undefined;
  if (effort === 'low' || effort === 'medium' || effort === 'high') return effort;
  if (effort === 'max') return 'high';
  if (thinking?.type === 'adaptive') return 'medium';
  if (thinking?.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens ?? 0;
  return budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
}

function chatTool(tool: Tool) {
  return {
    type: 'function' as const,
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: (tool.input_schema ?? { type: 'object', properties: {} }) as Record<string, never>,
    },
  };
}

function toolChoice(choice: { type?: string; name?: string } | undefined, notes: Notes): ChatRequest['tool_choice'] | undefined {
  if (!choice?.type) return undefined;
  if (choice.type === 'auto') return 'auto';
  if (choice.type === 'any') return 'required';
  if (choice.type === 'none') return 'none';
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name ?? '' } };
  notes.push({ param: 'tool_choice.type', what: `the tool_choice ${choice.type}` });
  return undefined;
}

/** Names of the tools a tool search's results (tool_reference blocks in tool results) loaded. */
function referencedTools(messages: readonly InputMessage[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result' || !Array.isArray(block.content)) continue;
      for (const inner of block.content) if (inner.type === 'tool_reference' && typeof inner.tool_name === 'string') names.add(inner.tool_name);
    }
  }
  return names;
}

/** Top-level fields only Anthropic runs (Anthropic-side tools and containers, top_k sampling). */
const ANTHROPIC_ONLY = ['top_k', 'mcp_servers', 'container'] as const;

export function chatRequestOf(request: MessagesRequest): { chat: ChatRequest; untranslatable: Untranslatable[] } {
  const notes: Notes = [];
  for (const field of ANTHROPIC_ONLY) if (request[field] !== undefined && request[field] !== null) notes.push({ param: field, what: field });
  // max_completion_tokens: what every adapter reads first, and the only one OpenAI's reasoning models take.
  const chat: ChatRequest = { model: request.model, messages: conversation(request, notes), max_completion_tokens: request.max_tokens };
  if (request.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  const tools = (request.tools ?? []) as Tool[];
  // Deferred tools (`defer_loading`) are offered once a tool search returned a reference to them, as Anthropic does.
  const referenced = referencedTools(request.messages as InputMessage[]);
  // Server tools (web search, code execution, ...) run at Anthropic: noted, so other targets refuse them.
  const clientTools = tools.filter((tool, i) => {
    const client = tool.type === undefined || tool.type === null || tool.type === 'custom';
    if (!client) notes.push({ param: `tools[${i}]`, what: `the server tool ${String(tool.type)}` });
    return client && (tool.defer_loading !== true || referenced.has(tool.name));
  });
  if (clientTools.length) chat.tools = clientTools.map(chatTool);
  const choice = request.tool_choice as { type?: string; name?: string; disable_parallel_tool_use?: boolean } | undefined;
  const mapped = toolChoice(choice, notes);
  if (mapped !== undefined && (chat.tools || mapped === 'none')) chat.tool_choice = mapped;
  if (choice?.disable_parallel_tool_use === true && chat.tools) chat.parallel_tool_calls = false;
  // Both forms: each target keeps the one its provider takes (../chat/messages-wire.ts).
  const effort = reasoningEffort(request);
  if (effort) chat.reasoning_effort = effort;
  const thinking = request.thinking as { type?: string; budget_tokens?: number } | undefined;
  if (thinking?.type === 'enabled' || thinking?.type === 'adaptive') {
    chat.thinking = { type: 'enabled', ...(typeof thinking.budget_tokens === 'number' ? { budget_tokens: thinking.budget_tokens } : {}) };
  }
  if (request.stop_sequences?.length) chat.stop = request.stop_sequences;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  const user = (request.metadata as { user_id?: unknown } | undefined)?.user_id;
  if (typeof user === 'string') chat.user = user;
  const format = (request.output_config as { format?: { type?: string; schema?: unknown } } | undefined)?.format;
  if (format?.type === 'json_schema') chat.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema as Record<string, never> } };
  return { chat, untranslatable: notes };
}
