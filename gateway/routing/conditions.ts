/**
 * Conditional routing queries: a small MongoDB-style matcher over the request's
 * `metadata.*` and `params.*` (the request body). Field paths are dotted; top-level keys
 * of a query are ANDed; `$and` / `$or` combine sub-queries. A plain value means `$eq`.
 * `$regex` patterns run on RE2 in linear time (gateway/linear-regex.ts).
 */
import { linearRegex } from '../linear-regex.js';

export interface ConditionSubject {
  metadata: Record<string, unknown>;
  params: Record<string, unknown>;
}

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex']);

function lookup(subject: ConditionSubject, path: string): unknown {
  let current: unknown = subject;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).every((key) => key.startsWith('$'));
}

function compare(actual: unknown, expected: unknown): number | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  // Metadata values are strings; compare numerically when both read as numbers.
  const a = Number(actual);
  const b = Number(expected);
  if (actual !== '' && actual !== null && actual !== undefined && !Number.isNaN(a) && !Number.isNaN(b)) return a - b;
  if (typeof actual === 'string' && typeof expected === 'string') return actual < expected ? -1 : actual > expected ? 1 : 0;
  return undefined;
}

function equals(actual: unknown, expected: unknown): boolean {
  if (actual === expected) return true;
  if (actual === undefined || actual === null) return false;
  return JSON.stringify(actual) === JSON.stringify(expected);
}

function applyOperator(operator: string, actual: unknown, expected: unknown): boolean {
  const order = compare(actual, expected);
  switch (operator) {
    case '$eq':
      return equals(actual, expected);
    case '$ne':
      return !equals(actual, expected);
    case '$gt':
      return order !== undefined && order > 0;
    case '$gte':
      return order !== undefined && order >= 0;
    case '$lt':
      return order !== undefined && order < 0;
    case '$lte':
      return order !== undefined && order <= 0;
    case '$in':
      return Array.isArray(expected) && expected.some((item) => equals(actual, item));
    case '$nin':
      return Array.isArray(expected) && !expected.some((item) => equals(actual, item));
    case '$regex':
      return typeof actual === 'string' && typeof expected === 'string' && linearRegex(expected).test(actual);
    default:
      throw new Error(`Unknown condition operator ${operator}`);
  }
}

/** Problems that make a query unusable, as `param` paths relative to the query; empty when fine. */
export function queryProblems(query: unknown, at = 'query'): string[] {
  if (query === null || typeof query !== 'object' || Array.isArray(query)) return [at];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value)) problems.push(`${at}.${key}`);
      else value.forEach((sub, index) => problems.push(...queryProblems(sub, `${at}.${key}[${index}]`)));
    } else if (key.startsWith('$')) {
      problems.push(`${at}.${key}`);
    } else if (!key.startsWith('metadata.') && !key.startsWith('params.')) {
      problems.push(`${at}.${key}`);
    } else if (isOperatorObject(value)) {
      for (const [operator, operand] of Object.entries(value)) {
        if (!OPERATORS.has(operator)) problems.push(`${at}.${key}.${operator}`);
        else if ((operator === '$in' || operator === '$nin') && !Array.isArray(operand)) problems.push(`${at}.${key}.${operator}`);
        else if (operator === '$regex') {
          try {
            linearRegex(String(operand));
          } catch {
            problems.push(`${at}.${key}.${operator}`);
          }
        }
      }
    }
  }
  return problems;
}

export function matches(query: Record<string, unknown>, subject: ConditionSubject): boolean {
  return Object.entries(query).every(([key, value]) => {
    if (key === '$and') return (value as Record<string, unknown>[]).every((sub) => matches(sub, subject));
    if (key === '$or') return (value as Record<string, unknown>[]).some((sub) => matches(sub, subject));
    const actual = lookup(subject, key);
    if (isOperatorObject(value)) return Object.entries(value).every(([operator, operand]) => applyOperator(operator, actual, operand));
    return equals(actual, value);
  });
}
