/**
 * The parts of the Bedrock Converse JSON wire format this adapter writes and reads (field names as
 * in the AWS API reference and @aws-sdk/client-bedrock-runtime; blobs travel as base64 strings).
 */
/** Marks the end of a prompt prefix Bedrock may cache (from OpenAI-shaped `cache_control`). */
export type CachePoint = { cachePoint: { type: 'default' } };

export type DocumentFormat = 'pdf' | 'csv' | 'doc' | 'docx' | 'xls' | 'xlsx' | 'html' | 'txt' | 'md';

export type ConverseContentBlock =
  | { text: string }
  | CachePoint
  | { image: { format: 'png' | 'jpeg' | 'gif' | 'webp'; source: { bytes: string } } }
  | { document: { format: DocumentFormat; name: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: Array<{ text: string } | { json: unknown }>; status?: 'success' | 'error' } }
  | { reasoningContent: { reasoningText?: { text: string; signature?: string }; redactedContent?: string } };

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseToolConfig {
  tools: Array<{ toolSpec: { name: string; description?: string; inputSchema: { json: unknown } } } | CachePoint>;
  toolChoice?: { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };
}

export interface ConverseRequestBody {
  messages: ConverseMessage[];
  system?: Array<{ text: string } | CachePoint>;
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: ConverseToolConfig;
  additionalModelRequestFields?: Record<string, unknown>;
  outputConfig?: { textFormat: { type: 'json_schema'; structure: { jsonSchema: { schema: string; name?: string; description?: string } } } };
}

export interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

export interface ConverseResponseBody {
  output?: { message?: { role?: string; content?: ConverseContentBlock[] } };
  stopReason?: string;
  usage?: ConverseUsage;
}
