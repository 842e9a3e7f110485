/** Anthropic's GET /v1/models answer -> OpenAI model list. */
import type { ModelList } from '../types.js';

interface AnthropicModelInfo {
  id?: string;
  created_at?: string;
}

export function toModelList(raw: unknown): ModelList {
  const models = ((raw ?? {}) as { data?: AnthropicModelInfo[] }).data ?? [];
  return {
    object: 'list',
    data: models
      .filter((model): model is AnthropicModelInfo & { id: string } => typeof model.id === 'string')
      .map((model) => {
        const created = model.created_at ? Math.floor(Date.parse(model.created_at) / 1000) : 0;
        return { id: model.id, object: 'model', created: Number.isFinite(created) ? created : 0, owned_by: 'anthropic', provider: 'anthropic' };
      }),
  };
}
