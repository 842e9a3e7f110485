/**
 * OpenAI messages -> Converse `system` blocks and alternating user/assistant turns.
 * - system and developer messages, wherever they appear, become top-level `system` text blocks
 *   (Converse has no system role inside the conversation).
 * - images must be `data:` URLs: Bedrock takes image bytes, not URLs, so an https URL is a 400;
 *   files likewise (`file_data`), as document blocks; audio parts are a 400.
 * - tool messages become user `toolResult` blocks; consecutive turns of the same role (several tool
 *   results, or tool results followed by a user message) merge into one turn, as Converse wants
 *   strict alternation.
 * - `cache_control` on a text or image part (or a tool, in request-body.ts) adds a Converse
 *   `cachePoint` after it: Bedrock's prompt caching marks the end of a cacheable prefix the same way.
 * - tool results carry no `status`: OpenAI tool messages have no error flag to map.
 * - legacy `function` messages and `assistant.function_call` map to toolResult / toolUse with the
 *   function name as the tool use id (the legacy shapes carry no id).
 */
import { ValidationError } from '../../../core/errors.js';
import type { ChatRequest } from '../types.js';
import { chatMessagesOf, type AssistantMessage, type ChatMessage, type FilePart, type TextContent, type UserMessage } from '../chat-messages.js';
import type { CachePoint, ConverseContentBlock, ConverseMessage, DocumentFormat } from './wire.js';

const IMAGE_FORMATS: Record<string, 'png' | 'jpeg' | 'gif' | 'webp'> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const DOCUMENT_FORMATS: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export const CACHE_POINT: CachePoint = { cachePoint: { type: 'default' } };

export interface ConverseConversation {
  system: Array<{ text: string } | CachePoint>;
  messages: ConverseMessage[];
  /** True when some turn carries toolUse or toolResult blocks (Bedrock then requires toolConfig). */
  usesTools: boolean;
}

function textOf(content: TextContent): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function systemBlocks(content: TextContent): Array<{ text: string } | CachePoint> {
  if (typeof content === 'string') return [{ text: content }];
  return content.flatMap((part) => (part.cache_control ? [{ text: part.text }, CACHE_POINT] : [{ text: part.text }]));
}

function imageBlock(url: string, param: string): ConverseContentBlock {
  const match = DATA_URL.exec(url);
  if (!match) {
    throw new ValidationError('bedrock takes images as bytes only: send a data: URL with base64 content (https image URLs are not supported)', param);
  }
  const format = IMAGE_FORMATS[match[1]!.toLowerCase()];
  if (!format) throw new ValidationError(`bedrock does not take images of type ${match[1]}; use png, jpeg, gif or webp`, param);
  return { image: { format, source: { bytes: match[2]! } } };
}

/**
 * A file part with inline `file_data` (a data: URL) becomes a document block. The name is neutral
 * and unique (Bedrock wants one, and warns that the model may read it as instructions), so the
 * client's filename is not sent. Uploaded file ids cannot be resolved: 400.
 */
function documentBlock(file: FilePart['file'], param: string, name: string): ConverseContentBlock {
  const match = file.file_data === undefined ? null : DATA_URL.exec(file.file_data);
  if (!match) throw new ValidationError('bedrock takes files as inline bytes only: send file_data as a data: URL with base64 content', `${param}.file.file_data`);
  const format = DOCUMENT_FORMATS[match[1]!.toLowerCase()];
  if (!format) throw new ValidationError(`bedrock does not take documents of type ${match[1]}`, `${param}.file.file_data`);
  return { document: { format, name, source: { bytes: match[2]! } } };
}

function userBlocks(message: UserMessage, index: number): ConverseContentBlock[] {
  if (typeof message.content === 'string') return [{ text: message.content }];
  return message.content.flatMap((part, partIndex): ConverseContentBlock[] => {
    const param = `messages[${index}].content[${partIndex}]`;
    switch (part.type) {
      case 'text':
        return part.cache_control ? [{ text: part.text }, CACHE_POINT] : [{ text: part.text }];
      case 'image_url': {
        const image = imageBlock(part.image_url.url, `${param}.image_url.url`);
        return part.cache_control ? [image, CACHE_POINT] : [image];
      }
      case 'file':
        return [documentBlock(part.file, `messages[${index}].content[${partIndex}]`, `document-${index}-${partIndex}`)];
      default:
        throw new ValidationError(`bedrock does not take ${part.type} content parts`, `${param}.type`);
    }
  });
}

function parseArguments(text: string, param: string): unknown {
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new ValidationError('tool call arguments must be a JSON object for bedrock', param);
  }
}

function assistantBlocks(message: AssistantMessage, index: number): ConverseContentBlock[] {
  const blocks: ConverseContentBlock[] = [];
  const content = message.content;
  const text = typeof content === 'string' ? content : (content ?? []).map((part) => ('text' in part ? part.text : part.refusal)).join('');
  // Bedrock rejects blank text blocks; an assistant turn that only calls tools has none.
  if (text.trim() !== '') blocks.push({ text });
  (message.tool_calls ?? []).forEach((call, callIndex) => {
    const input = parseArguments(call.function.arguments, `messages[${index}].tool_calls[${callIndex}].function.arguments`);
    blocks.push({ toolUse: { toolUseId: call.id, name: call.function.name, input } });
  });
  if (message.function_call) {
    const input = parseArguments(message.function_call.arguments, `messages[${index}].function_call.arguments`);
    blocks.push({ toolUse: { toolUseId: message.function_call.name, name: message.function_call.name, input } });
  }
  if (blocks.length === 0) throw new ValidationError('an assistant message needs text or tool calls for bedrock', `messages[${index}].content`);
  return blocks;
}

/**
 * A tool answer that is a JSON object travels as `json` to Anthropic models (which take structured
 * tool results); anything else, and every answer to other model families, as text, which every
 * Converse model with tool use accepts.
 */
function toolResultContent(text: string, jsonResults: boolean): Array<{ text: string } | { json: unknown }> {
  if (jsonResults && text.trimStart().startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return [{ json: value }];
    } catch {
      // Not JSON after all: send it as text.
    }
  }
  return [{ text }];
}

function turnOf(message: ChatMessage, index: number, jsonResults: boolean): ConverseMessage | undefined {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: userBlocks(message, index) };
    case 'assistant':
      return { role: 'assistant', content: assistantBlocks(message, index) };
    case 'tool':
      return { role: 'user', content: [{ toolResult: { toolUseId: message.tool_call_id, content: toolResultContent(textOf(message.content), jsonResults) } }] };
    case 'function':
      return { role: 'user', content: [{ toolResult: { toolUseId: message.name, content: toolResultContent(message.content ?? '', jsonResults) } }] };
    default:
      return undefined;
  }
}

export function toConverseConversation(request: ChatRequest, options: { jsonToolResults: boolean }): ConverseConversation {
  const messages = chatMessagesOf(request);
  const system: ConverseConversation['system'] = [];
  const turns: ConverseMessage[] = [];
  let usesTools = false;
  messages.forEach((message, index) => {
    if (message.role === 'system' || message.role === 'developer') {
      system.push(...systemBlocks(message.content));
      return;
    }
    const turn = turnOf(message, index, options.jsonToolResults)!;
    if (turn.content.some((block) => 'toolUse' in block || 'toolResult' in block)) usesTools = true;
    const previous = turns.at(-1);
    if (previous && previous.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  });
  if (turns.length === 0) throw new ValidationError('bedrock needs at least one user or assistant message besides system messages', 'messages');
  return { system, messages: turns, usesTools };
}
