/**
 * OpenAI messages -> Anthropic `system` blocks and alternating user/assistant turns.
 * - system and developer messages, wherever they appear, become top-level `system` text blocks
 *   (the Messages API has no system role inside the conversation); `cache_control` on text parts is kept.
 * - images: `data:` URLs become base64 sources, http(s) URLs become url sources (Anthropic fetches them).
 * - files: a `data:application/pdf` file becomes a document block; file ids and other types are a 400.
 * - assistant tool_calls become tool_use blocks; tool messages become user tool_result blocks.
 * - consecutive turns of the same role merge into one (several tool results, or tool results then a
 *   user message), as the Messages API wants strict alternation.
 * - legacy `function` messages and `assistant.function_call` use the function name as the tool use id.
 */
import { ValidationError } from '../../../core/errors.js';
import { chatMessagesOf, type AssistantMessage, type ChatMessage, type FilePart, type ImagePart, type TextContent, type UserMessage } from '../chat-messages.js';
import type { ChatRequest } from '../types.js';
import type { AnthropicRequestBlock, AnthropicTextBlock, AnthropicTurn } from './wire.js';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export interface AnthropicConversation {
  system: AnthropicTextBlock[];
  messages: AnthropicTurn[];
}

function textBlocks(content: TextContent): AnthropicTextBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part) => ({ type: 'text', text: part.text, ...(part.cache_control ? { cache_control: part.cache_control } : {}) }));
}

function textOf(content: TextContent): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function imageBlock(part: ImagePart, param: string): AnthropicRequestBlock {
  const url = part.image_url.url;
  const cache = part.cache_control ? { cache_control: part.cache_control } : {};
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase().replace('image/jpg', 'image/jpeg');
    if (!IMAGE_TYPES.has(mediaType)) throw new ValidationError(`anthropic does not take images of type ${data[1]}; use jpeg, png, gif or webp`, param);
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data[2]! }, ...cache };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url }, ...cache };
  throw new ValidationError('anthropic takes images as http(s) URLs or data: URLs with base64 content', param);
}

function fileBlock(part: FilePart, param: string): AnthropicRequestBlock {
  const data = DATA_URL.exec(part.file.file_data ?? '');
  if (!data || data[1]!.toLowerCase() !== 'application/pdf') {
    throw new ValidationError('anthropic takes files as file_data data: URLs of PDF documents (file ids are not supported)', param);
  }
  return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data[2]! } };
}

function userBlocks(message: UserMessage, index: number): AnthropicRequestBlock[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return message.content.map((part, partIndex): AnthropicRequestBlock => {
    const param = `messages[${index}].content[${partIndex}]`;
    switch (part.type) {
      case 'text':
        return textBlocks([part])[0]!;
      case 'image_url':
        return imageBlock(part, `${param}.image_url.url`);
      case 'file':
        return fileBlock(part, `${param}.file`);
      default:
        throw new ValidationError(`anthropic does not take ${part.type} content parts`, `${param}.type`);
    }
  });
}

function parseArguments(text: string, param: string): unknown {
  try {
    const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch {
    // Reported below.
  }
  throw new ValidationError('tool call arguments must be a JSON object for anthropic', param);
}

function assistantBlocks(message: AssistantMessage, index: number): AnthropicRequestBlock[] {
  const blocks: AnthropicRequestBlock[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    // The Messages API rejects empty text blocks; an assistant turn that only calls tools has none.
    if (content !== '') blocks.push({ type: 'text', text: content });
  } else {
    for (const part of content ?? []) {
      const text = 'text' in part ? part.text : part.refusal;
      if (text !== '') blocks.push({ type: 'text', text, ...('cache_control' in part && part.cache_control ? { cache_control: part.cache_control } : {}) });
    }
  }
  (message.tool_calls ?? []).forEach((call, callIndex) => {
    const input = parseArguments(call.function.arguments, `messages[${index}].tool_calls[${callIndex}].function.arguments`);
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
  });
  if (message.function_call) {
    const input = parseArguments(message.function_call.arguments, `messages[${index}].function_call.arguments`);
    blocks.push({ type: 'tool_use', id: message.function_call.name, name: message.function_call.name, input });
  }
  if (blocks.length === 0) throw new ValidationError('an assistant message needs text or tool calls for anthropic', `messages[${index}].content`);
  return blocks;
}

function toolResult(toolUseId: string, content: TextContent): AnthropicRequestBlock {
  const blocks = textBlocks(content);
  // Plain text travels as a string; text parts keep their blocks so cache_control survives.
  const hasCacheControl = blocks.some((block) => block.cache_control);
  return { type: 'tool_result', tool_use_id: toolUseId, content: hasCacheControl ? blocks : textOf(content) };
}

function turnOf(message: Exclude<ChatMessage, { role: 'system' | 'developer' }>, index: number): AnthropicTurn {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: userBlocks(message, index) };
    case 'assistant':
      return { role: 'assistant', content: assistantBlocks(message, index) };
    case 'tool':
      return { role: 'user', content: [toolResult(message.tool_call_id, message.content)] };
    case 'function':
      return { role: 'user', content: [toolResult(message.name, message.content ?? '')] };
  }
}

export function toAnthropicConversation(messages: ChatRequest['messages']): AnthropicConversation {
  const system: AnthropicTextBlock[] = [];
  const turns: AnthropicTurn[] = [];
  chatMessagesOf({ messages }).forEach((message, index) => {
    if (message.role === 'system' || message.role === 'developer') {
      system.push(...textBlocks(message.content));
      return;
    }
    const turn = turnOf(message, index);
    const previous = turns.at(-1);
    if (previous && previous.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  });
  if (turns.length === 0) throw new ValidationError('anthropic needs at least one user or assistant message besides system messages', 'messages');
  return { system, messages: turns };
}
