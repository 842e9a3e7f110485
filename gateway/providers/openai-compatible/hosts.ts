/**
 * OpenAI-compatible hosts. Each drops `store` and `metadata` (OpenAI-platform features these
 * hosts do not take) plus the fields listed, and renames what it names differently. Only OpenRouter
 * takes OpenAI's `file` content parts (PDFs); the others refuse them with 400.
 */
import { createOpenAiCompatibleAdapter, type OpenAiCompatibleOptions } from './adapter.js';

const PLATFORM_ONLY = ['store', 'metadata'] as const;

function host(options: OpenAiCompatibleOptions) {
  return createOpenAiCompatibleAdapter({ documents: false, ...options, dropFields: [...PLATFORM_ONLY, ...(options.dropFields ?? [])] });
}

export const groq = host({ name: 'groq', baseUrl: 'https://api.groq.com/openai/v1', dropFields: ['logit_bias', 'logprobs', 'top_logprobs'], batchApi: true });
// Mistral refuses unknown fields (422) and reports usage on its last chunk unasked.
export const mistralAi = host({
  name: 'mistral-ai',
  baseUrl: 'https://api.mistral.ai/v1',
  maxTokensOnly: true,
  streamOptions: false,
  dropFields: ['logit_bias', 'logprobs', 'top_logprobs', 'user', 'service_tier'],
  renameFields: { seed: 'random_seed' },
});
export const togetherAi = host({ name: 'together-ai', baseUrl: 'https://api.together.xyz/v1' });
export const fireworksAi = host({ name: 'fireworks-ai', baseUrl: 'https://api.fireworks.ai/inference/v1' });
export const deepseek = host({ name: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', maxTokensOnly: true });
export const openrouter = host({ name: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', documents: true });
// Local by default: reached only through the custom-host guard (TRUSTED_CUSTOM_HOSTS or a custom host).
export const ollama = host({ name: 'ollama', defaultCustomHost: 'http://localhost:11434/v1', auth: 'none', maxTokensOnly: true });
export const vllm = host({ name: 'vllm', auth: 'none' });
export const perplexityAi = host({ name: 'perplexity-ai', baseUrl: 'https://api.perplexity.ai', maxTokensOnly: true, dropFields: ['logit_bias', 'logprobs', 'top_logprobs'] });
export const xAi = host({ name: 'x-ai', baseUrl: 'https://api.x.ai/v1' });
export const cerebras = host({ name: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', dropFields: ['frequency_penalty', 'presence_penalty', 'logit_bias'] });
export const deepinfra = host({ name: 'deepinfra', baseUrl: 'https://api.deepinfra.com/v1/openai' });
export const sambanova = host({ name: 'sambanova', baseUrl: 'https://api.sambanova.ai/v1', maxTokensOnly: true });
