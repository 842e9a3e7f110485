import { ValidationError } from '../../core/errors.js';
import { isMetadataKey, type LogFilter } from '../../store/log-filter.js';

/** Filters as the logs list, analytics and exports take them over the API. */
export interface LogFilterInput {
  start_time?: string;
  end_time?: string;
  status?: string;
  model?: string;
  provider?: string;
  trace_id?: string;
  cache_status?: string;
  api_key_id?: string;
  endpoint?: string;
  prompt_id?: string;
  prompt_version?: number;
  prompt_label?: string;
  /** `key=value` pairs, comma-separated (query strings), or an object (export bodies). */
  metadata?: string | Record<string, string>;
}

function time(value: string | undefined, param: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ValidationError(`${param} must be an ISO 8601 date-time`, param);
  return ms;
}

function metadataPairs(input: LogFilterInput['metadata']): Record<string, string> | undefined {
  if (input === undefined || input === '') return undefined;
  const pairs: Record<string, string> = {};
  const entries =
    typeof input === 'string'
      ? input.split(',').map((pair) => {
          const at = pair.indexOf('=');
          if (at <= 0) throw new ValidationError('metadata must be key=value pairs separated by commas', 'metadata');
          return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()] as const;
        })
      : Object.entries(input);
  for (const [key, value] of entries) {
    if (!isMetadataKey(key)) throw new ValidationError(`metadata key "${key}" may use letters, digits, _ . - only`, 'metadata');
    pairs[key] = String(value);
  }
  return pairs;
}

/** Parses API filter input into a store LogFilter for one organisation (and workspace, when scoped). */
export function toLogFilter(organisationId: string, workspaceId: string | undefined, input: LogFilterInput): LogFilter {
  const start = time(input.start_time, 'start_time');
  const end = time(input.end_time, 'end_time');
  if (start !== undefined && end !== undefined && start >= end) throw new ValidationError('start_time must be before end_time', 'start_time');
  const status = input.status
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of status ?? []) {
    if (!/^([1-5][0-9][0-9]|[1-5]xx)$/i.test(s)) throw new ValidationError(`status "${s}" is neither a code (429) nor a class (4xx)`, 'status');
  }
  return {
    organisation_id: organisationId,
    workspace_id: workspaceId,
    api_key_id: input.api_key_id,
    start,
    end,
    status,
    model: input.model,
    provider: input.provider,
    trace_id: input.trace_id,
    cache_status: input.cache_status,
    endpoint: input.endpoint,
    prompt_id: input.prompt_id,
    prompt_version: input.prompt_version,
    prompt_label: input.prompt_label,
    metadata: metadataPairs(input.metadata),
  };
}
