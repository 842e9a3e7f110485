/**
 * Provider name (as in `x-gw-provider` and config `provider`) -> adapter. One line per provider;
 * adapters are stateless, so one instance serves every request.
 */
import { anthropic } from './anthropic/index.js';
import { azureOpenAi } from './azure-openai/index.js';
import { bedrock } from './bedrock/index.js';
import { cohere } from './cohere/index.js';
import { google } from './google/index.js';
import * as hosts from './openai-compatible/hosts.js';
import { openai } from './openai/index.js';
import type { ProviderAdapter } from './types.js';
import { vertexAi } from './vertex-ai/index.js';

const adapters: Record<string, ProviderAdapter> = {
  openai: openai,
  'azure-openai': azureOpenAi,
  bedrock: bedrock,
  anthropic: anthropic,
  cohere: cohere,
  'vertex-ai': vertexAi,
  google: google,
  groq: hosts.groq,
  'mistral-ai': hosts.mistralAi,
  'together-ai': hosts.togetherAi,
  'fireworks-ai': hosts.fireworksAi,
  deepseek: hosts.deepseek,
  openrouter: hosts.openrouter,
  ollama: hosts.ollama,
  vllm: hosts.vllm,
  'perplexity-ai': hosts.perplexityAi,
  'x-ai': hosts.xAi,
  cerebras: hosts.cerebras,
  deepinfra: hosts.deepinfra,
  sambanova: hosts.sambanova,
};

const registry = new Map<string, ProviderAdapter>(Object.entries(adapters));

export function adapterFor(name: string): ProviderAdapter | undefined {
  return registry.get(name);
}

export function providerNames(): string[] {
  return [...registry.keys()];
}

/** A self-hosted default URL an adapter reaches only through the custom-host guard (ollama). */
export function defaultCustomHost(adapter: ProviderAdapter): string | undefined {
  return (adapter as { defaultCustomHost?: string }).defaultCustomHost;
}
