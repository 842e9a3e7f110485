/** The Bedrock control plane's ListFoundationModels answer -> OpenAI model list. */
import type { ModelList } from '../types.js';

interface FoundationModelSummary {
  modelId?: string;
  providerName?: string;
}

export function toModelList(raw: unknown): ModelList {
  const summaries = ((raw ?? {}) as { modelSummaries?: FoundationModelSummary[] }).modelSummaries ?? [];
  return {
    object: 'list',
    data: summaries
      .filter((summary): summary is FoundationModelSummary & { modelId: string } => typeof summary.modelId === 'string')
      // Bedrock gives no creation time for foundation models.
      .map((summary) => ({ id: summary.modelId, object: 'model', created: 0, owned_by: summary.providerName ?? 'bedrock', provider: 'bedrock' })),
  };
}
