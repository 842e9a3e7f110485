/**
 * The bundled catalog: model ids gw knows, by provider. GET /v1/models answers with it when the
 * caller names no provider (or sends x-gw-fetch-integrated-models: true). It is a starting list,
 * not a limit: any model id is accepted on chat calls.
 */
export const KNOWN_MODELS: Readonly<Record<string, readonly string[]>> = {
  openai: [
    'gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'o4-mini', 'o3', 'o3-mini', 'o1', 'o1-mini',
    'gpt-4o', 'gpt-4o-mini', 'gpt-4o-2024-05-13', 'gpt-4-turbo', 'gpt-4-turbo-2024-04-09', 'gpt-4-0125-preview',
    'gpt-4-turbo-preview', 'gpt-4-1106-preview', 'gpt-4-vision-preview', 'gpt-4', 'gpt-4-0314', 'gpt-4-0613',
    'gpt-4-32k', 'gpt-4-32k-0314', 'gpt-4-32k-0613', 'gpt-3.5-turbo', 'gpt-3.5-turbo-16k', 'gpt-3.5-turbo-0301',
    'gpt-3.5-turbo-0613', 'gpt-3.5-turbo-1106', 'gpt-3.5-turbo-0125', 'gpt-3.5-turbo-16k-0613',
  ],
  anthropic: ['claude-opus-4-1', 'claude-opus-4-0', 'claude-sonnet-4-5', 'claude-sonnet-4-0', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'],
  google: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-2.0-flash'],
  'vertex-ai': ['gemini-2.5-pro', 'gemini-2.5-flash', 'claude-sonnet-4-5@20250929', 'claude-opus-4-1@20250805'],
  bedrock: ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-3-5-haiku-20241022-v1:0', 'amazon.nova-pro-v1:0', 'meta.llama3-1-70b-instruct-v1:0'],
  groq: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant', 'openai/gpt-oss-120b'],
  'mistral-ai': ['mistral-large-latest', 'mistral-small-latest', 'codestral-latest'],
  'together-ai': ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'deepseek-ai/DeepSeek-V3'],
  'fireworks-ai': ['accounts/fireworks/models/llama-v3p1-70b-instruct'],
  deepseek: ['deepseek-chat', 'deepseek-reasoner'],
  'x-ai': ['grok-4', 'grok-3-mini'],
  'perplexity-ai': ['sonar', 'sonar-pro'],
  cerebras: ['llama3.1-8b', 'llama-3.3-70b'],
};
