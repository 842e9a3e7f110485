/** A model list in Anthropic's shape, for Anthropic clients' model discovery (GET /v1/models with `anthropic-version`). */
import type { ModelList } from '../providers/types.js';

export function anthropicModelList(list: ModelList) {
  const data = list.data.map((model) => ({
    type: 'model' as const,
    id: model.id,
    display_name: model.id,
    created_at: new Date((model.created ?? 0) * 1000).toISOString(),
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
