/** OpenAI's attribute filters: a comparison on one key, or and/or over filters. */
export type AttributeFilter =
  | { type: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; key: string; value: string | number | boolean }
  | { type: 'and' | 'or'; filters: AttributeFilter[] };

type Attributes = Record<string, string | number | boolean> | null;

export function matchesFilter(filter: AttributeFilter, attributes: Attributes): boolean {
  if ('filters' in filter) return filter.type === 'and' ? filter.filters.every((inner) => matchesFilter(inner, attributes)) : filter.filters.some((inner) => matchesFilter(inner, attributes));
  const actual = attributes?.[filter.key];
  if (filter.type === 'ne') return actual !== filter.value;
  if (actual === undefined) return false;
  if (filter.type === 'eq') return actual === filter.value;
  // Ordering compares values of one type only (numbers with numbers, strings with strings).
  if (typeof actual !== typeof filter.value) return false;
  const order = actual < filter.value ? -1 : actual > filter.value ? 1 : 0;
  return filter.type === 'gt' ? order > 0 : filter.type === 'gte' ? order >= 0 : filter.type === 'lt' ? order < 0 : order <= 0;
}
