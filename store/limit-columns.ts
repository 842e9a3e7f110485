import type { AttachedLimits } from '../core/limit-policy-types.js';
import { fromJson, toJson } from './json-column.js';

/** The usage_limits and rate_limits JSON columns of api_keys, workspaces and providers (006_limits). */
export function readLimitColumns(row: Record<string, unknown>): Required<AttachedLimits> {
  return { usage_limits: fromJson(row.usage_limits, null), rate_limits: fromJson(row.rate_limits, null) };
}

/** Only the fields given are written, so other updates leave the limits alone. */
export function writeLimitColumns(values: AttachedLimits): Record<string, string | null> {
  const columns: Record<string, string | null> = {};
  if (values.usage_limits !== undefined) columns.usage_limits = toJson(values.usage_limits);
  if (values.rate_limits !== undefined) columns.rate_limits = toJson(values.rate_limits);
  return columns;
}
