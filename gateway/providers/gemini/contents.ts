/**
 * OpenAI messages -> Gemini `contents` (roles user and model) and `systemInstruction`.
 * - system and developer messages, wherever they appear, join `systemInstruction`.
 * - images: `data:` URLs become inlineData; other URLs (https, gs://) become fileData, with the
 *   MIME type taken from the file extension (image/jpeg when it names none: the part is an image).
 * - input_audio becomes inlineData audio/wav or audio/mp3; a file part's data: URL becomes
 *   inlineData; file ids are a 400 (Gemini file URIs go in image_url / fileData).
 * - assistant tool_calls become functionCall parts (with the thought signature their id carries, see
 *   candidate.ts); tool messages become functionResponse parts,
 *   named after the call they answer (Gemini matches results by function name, OpenAI by id). A
 *   result that is a JSON object is the response; anything else is wrapped as {output}.
 * - consecutive turns of the same role merge, so parallel function responses share one turn.
 */
import { ValidationError } from '../../../core/errors.js';
import { chatMessagesOf, type AssistantMessage, type ChatMessage, type TextContent, type UserMessage, type UserPart } from '../chat-messages.js';
import type { ChatRequest } from '../types.js';
import { splitToolCallId } from './candidate.js';
import type { GeminiContent, GeminiPart } from './wire.js';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

export interface GeminiConversation {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
}

function textOf(content: TextContent): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function imagePart(url: string): GeminiPart {
  const data = DATA_URL.exec(url);
  if (data) return { inlineData: { mimeType: data[1]!, data: data[2]! } };
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return { fileData: { mimeType: MIME_BY_EXTENSION[extension] ?? 'image/jpeg', fileUri: url } };
}

function userPart(part: UserPart, param: string): GeminiPart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return imagePart(part.image_url.url);
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data } };
    case 'file': {
      const data = DATA_URL.exec(part.file.file_data ?? '');
      if (!data) throw new ValidationError('gemini takes files as file_data data: URLs (file ids are not supported)', `${param}.file`);
      return { inlineData: { mimeType: data[1]!, data: data[2]! } };
    }
  }
}

function userParts(message: UserMessage, index: number): GeminiPart[] {
  if (typeof message.content === 'string') return [{ text: message.content }];
  return message.content.map((part, partIndex) => userPart(part, `messages[${index}].content[${partIndex}]`));
}

function parseArguments(text: string, param: string): Record<string, unknown> {
  try {
    const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new ValidationError('tool call arguments must be a JSON object for gemini', param);
}

function modelParts(message: AssistantMessage, index: number): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const content = message.content;
  const text = typeof content === 'string' ? content : (content ?? []).map((part) => (part.type === 'text' ? part.text : part.refusal)).join('');
  if (text !== '') parts.push({ text });
  (message.tool_calls ?? []).forEach((call, callIndex) => {
    const args = parseArguments(call.function.arguments, `messages[${index}].tool_calls[${callIndex}].function.arguments`);
    const { thoughtSignature } = splitToolCallId(call.id);
    parts.push({ functionCall: { name: call.function.name, args }, ...(thoughtSignature ? { thoughtSignature } : {}) });
  });
  if (message.function_call) {
    parts.push({ functionCall: { name: message.function_call.name, args: parseArguments(message.function_call.arguments, `messages[${index}].function_call.arguments`) } });
  }
  if (parts.length === 0) throw new ValidationError('an assistant message needs text or tool calls for gemini', `messages[${index}].content`);
  return parts;
}

function functionResponse(name: string, text: string): GeminiPart {
  let response: Record<string, unknown> = { output: text };
  if (text.trimStart().startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) response = value as Record<string, unknown>;
    } catch {
      // Not JSON after all: sent as {output: text}.
    }
  }
  return { functionResponse: { name, response } };
}

export function toGeminiConversation(request: ChatRequest): GeminiConversation {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  const functionNames = new Map<string, string>();
  const add = (content: GeminiContent) => {
    const previous = contents.at(-1);
    if (previous && previous.role === content.role) previous.parts.push(...content.parts);
    else contents.push(content);
  };
  chatMessagesOf(request).forEach((message: ChatMessage, index) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content));
        return;
      case 'user':
        add({ role: 'user', parts: userParts(message, index) });
        return;
      case 'assistant':
        for (const call of message.tool_calls ?? []) functionNames.set(call.id, call.function.name);
        add({ role: 'model', parts: modelParts(message, index) });
        return;
      case 'tool': {
        const name = functionNames.get(message.tool_call_id);
        if (!name) throw new ValidationError('gemini needs the assistant tool call a tool message answers: no earlier tool_calls entry has this id', `messages[${index}].tool_call_id`);
        add({ role: 'user', parts: [functionResponse(name, textOf(message.content))] });
        return;
      }
      case 'function':
        add({ role: 'user', parts: [functionResponse(message.name, message.content ?? '')] });
        return;
    }
  });
  if (contents.length === 0) throw new ValidationError('gemini needs at least one user or assistant message besides system messages', 'messages');
  return { contents, ...(system.length > 0 ? { systemInstruction: { parts: system.map((text) => ({ text })) } } : {}) };
}
