/**
 * Embeds text through an OpenAI-shaped `POST {base}/embeddings` upstream call. The HTTP call is
 * injected (the gateway passes its transport, with its timeouts and address checks), so this
 * module only knows the wire format: `{model, input}` in, `data[0].embedding` out.
 */
import { UpstreamError } from '../../../core/errors.js';

export interface EmbeddingEndpoint {
  /** Base URL ending before `/embeddings`, e.g. https://api.openai.com/v1 */
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
}

export type JsonPost = (url: string, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<{ status: number; body: unknown }>;

/** Default base URLs of providers that serve OpenAI-shaped embeddings. */
export const EMBEDDING_BASE_URLS: Readonly<Record<string, string>> = {
  openai: 'https://api.openai.com/v1',
  'mistral-ai': 'https://api.mistral.ai/v1',
  'together-ai': 'https://api.together.xyz/v1',
  'fireworks-ai': 'https://api.fireworks.ai/inference/v1',
  deepinfra: 'https://api.deepinfra.com/v1/openai',
};

export async function embedText(post: JsonPost, endpoint: EmbeddingEndpoint, text: string, timeoutMs: number): Promise<number[]> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const headers = { 'content-type': 'application/json', ...endpoint.headers };
  const { status, body } = await post(url, headers, JSON.stringify({ model: endpoint.model, input: text }), timeoutMs);
  const embedding = (body as { data?: Array<{ embedding?: unknown }> } | undefined)?.data?.[0]?.embedding;
  if (status < 200 || status >= 300 || !Array.isArray(embedding) || !embedding.every((value) => typeof value === 'number')) {
    throw new UpstreamError(status >= 400 ? status : 502, `The embedding provider answered ${status} without an embedding`, 'embedding_failed');
  }
  return embedding as number[];
}
