/** AI Studio's GET /v1beta/models answer -> OpenAI model list. */
import type { ModelList } from '../types.js';

interface GeminiModelInfo {
  name?: string;
}

export function toModelList(raw: unknown): ModelList {
  const models = ((raw ?? {}) as { models?: GeminiModelInfo[] }).models ?? [];
  return {
    object: 'list',
    data: models
      .filter((model): model is { name: string } => typeof model.name === 'string')
      // AI Studio gives no creation time for models.
      .map((model) => ({ id: model.name.replace(/^models\//, ''), object: 'model', created: 0, owned_by: 'google', provider: 'google' })),
  };
}
