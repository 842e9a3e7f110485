/** The parts of Anthropic's Messages API the door reads and writes (types from the spec, blocks loosely). */
import type { components } from '../../generated/types.js';

export type MessagesRequest = components['schemas']['AnthropicMessagesRequest'];
export type CountTokensRequest = components['schemas']['AnthropicCountTokensRequest'];
export type AnthropicMessageObject = components['schemas']['AnthropicMessage'];
export type MessagesUsage = components['schemas']['AnthropicUsage'];

/** A content block as clients send it: typed by `type`, every other field read where needed. */
export interface Block {
  type: string;
  text?: string;
  source?: { type?: string; media_type?: string; data?: string; url?: string; file_id?: string; content?: unknown };
  title?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | Block[];
  is_error?: boolean;
  thinking?: string;
  signature?: string;
  [field: string]: unknown;
}

export interface InputMessage {
  role: string;
  content: string | Block[];
}

export interface Tool {
  type?: string;
  name: string;
  description?: string;
  input_schema?: unknown;
  [field: string]: unknown;
}
