/**
 * The model that embeds a vector store's chunks and queries: metadata `x-gw-embedding-model` on
 * the store, `@slug/model` naming a saved provider of the workspace. Embedding runs through gw's
 * own /v1/embeddings path (limits, routing, logs, cost) as the store's creator.
 */
import { ApiError, ValidationError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import { lineCall, type StoredPrincipal } from '../batches/line-call.js';
import { runChat } from '../chat/run-chat.js';
import { isChatCompletion } from '../chat/upstream-answer.js';
import type { SavedResources } from '../saved-resources.js';

export const EMBEDDING_MODEL_KEY = 'x-gw-embedding-model';
/** Inputs per embeddings call. */
const BATCH = 64;

export async function checkedEmbeddingModel(saved: SavedResources, owner: { organisationId: string; workspaceId: string }, metadata: Record<string, string> | null | undefined, at = ''): Promise<string> {
  const PARAM = `${at}metadata.${EMBEDDING_MODEL_KEY}`;
  const model = metadata?.[EMBEDDING_MODEL_KEY];
  if (model === undefined) throw new ValidationError(`${PARAM} is required: the embedding model as @slug/model (a saved provider of this workspace)`, PARAM, 'embedding_model_required');
  const slug = /^@([^/\s]+)\/\S+$/.exec(model)?.[1];
  if (!slug) throw new ValidationError(`${PARAM} names the embedding model as @slug/model`, PARAM, 'invalid_embedding_model');
  if (!(await saved.provider(owner.organisationId, owner.workspaceId, slug))) throw new ValidationError(`${PARAM}: no saved provider @${slug} in this workspace`, PARAM, 'provider_not_found');
  return model;
}

function unit(vector: number[]): number[] {
  const length = Math.hypot(...vector);
  return length === 0 ? vector : vector.map((value) => value / length);
}

/** Unit-length vectors for the texts, in order. An upstream or gw refusal throws its ApiError. */
export async function embedTexts(services: Services, principal: StoredPrincipal, model: string, texts: string[]): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += BATCH) {
    const call = lineCall(services, principal, {}, '/v1/embeddings');
    const result = await runChat(call, { model, input: texts.slice(start, start + BATCH), encoding_format: 'float' }, { endpoint: 'embeddings' });
    const answer = result.completion;
    if (!answer || isChatCompletion(answer)) throw new ApiError(502, 'embedding_failed', 'the embedding model answered no vectors', 'api_error');
    for (const item of [...answer.data].sort((a, b) => a.index - b.index)) vectors.push(unit(item.embedding as number[]));
  }
  return vectors;
}
