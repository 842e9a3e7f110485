/**
 * Wire-accurate types of the OpenAI chat messages, for adapters that translate them.
 * The generated types name the discriminator values after the schemas (`role: "UserMessage"`,
 * `type: "TextPart"`) because spec/schemas/chat.yaml gives no discriminator mapping (ajv's
 * discriminator support refuses one); these restore the values the spec validates.
 */
import type { components } from '../../generated/types.js';

type Schemas = components['schemas'];
type Tagged<T, K extends string, V extends string> = Omit<T, K> & Record<K, V>;

export type TextPart = Tagged<Schemas['TextPart'], 'type', 'text'>;
export type ImagePart = Tagged<Schemas['ImagePart'], 'type', 'image_url'>;
export type AudioPart = Tagged<Schemas['AudioPart'], 'type', 'input_audio'>;
export type FilePart = Tagged<Schemas['FilePart'], 'type', 'file'>;
export type RefusalPart = Tagged<Schemas['RefusalPart'], 'type', 'refusal'>;
export type UserPart = TextPart | ImagePart | AudioPart | FilePart;
export type TextContent = string | TextPart[];

export type SystemMessage = Omit<Tagged<Schemas['SystemMessage'], 'role', 'system'>, 'content'> & { content: TextContent };
export type DeveloperMessage = Omit<Tagged<Schemas['DeveloperMessage'], 'role', 'developer'>, 'content'> & { content: TextContent };
export type UserMessage = Omit<Tagged<Schemas['UserMessage'], 'role', 'user'>, 'content'> & { content: string | UserPart[] };
export type AssistantMessage = Omit<Tagged<Schemas['AssistantMessage'], 'role', 'assistant'>, 'content'> & {
  content?: null | string | Array<TextPart | RefusalPart>;
};
export type ToolMessage = Omit<Tagged<Schemas['ToolMessage'], 'role', 'tool'>, 'content'> & { content: TextContent };
export type FunctionMessage = Tagged<Schemas['FunctionMessage'], 'role', 'function'>;
export type ChatMessage = SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage | FunctionMessage;

/** The request's messages with their wire types (the same objects, typed by role). */
export function chatMessagesOf(request: { messages: unknown[] }): ChatMessage[] {
  return request.messages as ChatMessage[];
}
