import { ownerOf, pathParam } from '../assistants/owner.js';
import { storedPrincipal } from '../../gateway/batches/line-call.js';
import type { AttributeFilter } from '../../gateway/vector-stores/attribute-filter.js';
import { principalOf } from '../../core/call.js';
import { body, type Handler } from '../types.js';

export const searchVectorStore: Handler = async (c, call) => {
  const vectorStores = call.services.vectorStores;
  const store = await vectorStores.visible(ownerOf(call).workspaceId, pathParam(c, 'vector_store_id'));
  const input = body<'searchVectorStore'>(c);
  const queries = typeof input.query === 'string' ? [input.query] : input.query;
  const hits = await vectorStores.search(store, storedPrincipal(principalOf(call)), {
    queries,
    maxResults: input.max_num_results ?? 10,
    filters: input.filters as AttributeFilter | undefined,
    scoreThreshold: input.ranking_options?.score_threshold,
  });
  return {
    body: {
      object: 'vector_store.search_results.page',
      search_query: queries,
      data: hits.map((hit) => ({ file_id: hit.file_id, filename: hit.filename, score: hit.score, attributes: hit.attributes, content: [{ type: 'text', text: hit.text }] })),
      has_more: false,
      next_page: null,
    },
  };
};
