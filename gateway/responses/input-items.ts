/** A page of a stored response's input items, in OpenAI's list shape (`after` is an item id). */
import type { ResponseItemList, StoredInputItem } from './wire.js';

export interface ItemPageRequest {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
}

export function inputItemsPage(items: readonly StoredInputItem[], request: ItemPageRequest): ResponseItemList {
  const ordered = request.order === 'asc' ? [...items] : [...items].reverse();
  const start = request.after ? ordered.findIndex((item) => item.id === request.after) + 1 : 0;
  const limit = request.limit ?? 20;
  const data = ordered.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length };
}
