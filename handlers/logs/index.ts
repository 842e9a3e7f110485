import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { timeOrderedId } from '../../store/time-ordered-id.js';
import { toLogFilter } from '../../gateway/logs/log-filter-input.js';
import { prepareEntry } from '../../gateway/logs/prepare-entry.js';
import { withBodyPolicy } from '../../gateway/logs/body-policy-writer.js';
import { presentLog, presentLogSummary } from '../../gateway/logs/present-log.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { principalOf } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import { body, pathId, query, type Handler } from '../types.js';
import { listWorkspaceFilter, targetWorkspaceId } from '../workspace-target.js';


/** Between looks for a log another instance is still writing (GET /v1/logs/{id}?wait_ms=). */
const WAIT_POLL_MS = 100;

export const listLogs: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listLogs'>(c);
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  const filter = toLogFilter(principal.organisationId, workspaceId, q);
  // Read your writes: the requests this instance answered are listed, not left in its queue.
  await call.services.requestLogs.flush();
  const page = await call.services.store.requestLogs.list(filter, { limit: q.limit, cursor: q.cursor });
  return { body: { ...page, data: page.data.map(presentLogSummary) } };
};

export const getLog: Handler = async (c, call) => {
  const principal = principalOf(call);
  const id = pathId(c);
  const { wait_ms: waitMs = 0 } = query<'getLog'>(c);
  const { store, requestLogs } = call.services;
  const find = () => store.requestLogs.getByIdOrTraceId({ organisation_id: principal.organisationId, workspace_id: principal.workspaceId ?? undefined }, id);
  let record = await find();
  if (!record) {
    // Perhaps still queued here: written now, so a request this instance answered is found.
    await requestLogs.flush();
    record = await find();
  }
  // Perhaps queued on another instance: written within its flush interval.
  const deadline = Date.now() + waitMs;
  while (!record && Date.now() < deadline) {
    await sleep(Math.min(WAIT_POLL_MS, deadline - Date.now()));
    record = await find();
  }
  if (!record) throw new NotFoundError('Log', id);
  return { body: presentLog(record) };
};

interface CustomLogInput {
  trace_id?: string;
  span_id?: string;
  parent_span_id?: string;
  span_name?: string;
  created_at?: string;
  provider?: string;
  model?: string;
  status?: number;
  latency_ms?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  cost?: number;
  metadata?: Record<string, string>;
  request: unknown;
  response: unknown;
  workspace_id?: string;
}

function toEntry(input: CustomLogInput, context: { organisationId: string; workspaceId: string; apiKeyId: string; now: number }): RequestLogEntry {
  const prompt = input.prompt_tokens ?? 0;
  const completion = input.completion_tokens ?? 0;
  return {
    id: timeOrderedId(),
    endpoint: 'chat.completions',
    trace_id: input.trace_id ?? randomUUID(),
    span_id: input.span_id ?? null,
    parent_span_id: input.parent_span_id ?? null,
    span_name: input.span_name ?? null,
    created_at: input.created_at ? Date.parse(input.created_at) : context.now,
    organisation_id: context.organisationId,
    workspace_id: context.workspaceId,
    api_key_id: context.apiKeyId,
    config_id: null,
    provider: input.provider ?? null,
    model: input.model ?? null,
    status: input.status ?? 200,
    latency_ms: input.latency_ms ?? 0,
    first_byte_ms: null,
    stream: false,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cost: input.cost ?? 0,
    cache_status: 'DISABLED',
    retry_count: 0,
    route: [],
    metadata: input.metadata ?? {},
    request_headers: {},
    request_body: input.request ?? null,
    response_body: input.response ?? null,
    error: null,
    guardrail_results: null,
  };
}

/**
 * Custom logs are written at once (not queued) so the caller can read them back immediately; on
 * Postgres their rollups are counted by the rollup folder, many calls' rows per bucket at a time (an import spread
 * over months would otherwise upsert a few dozen rollup rows per log row). Analytics count them
 * exactly meanwhile.
 */
export const insertLogs: Handler = async (c, call) => {
  const imported = call.services.rollupBackfill.importing();
  try {
    return await storeCustomLogs(c, call);
  } finally {
    imported();
    call.services.rollupBackfill.wake();
  }
};

const storeCustomLogs: Handler = async (c, call) => {
  const principal = principalOf(call);
  const { logs } = body<'insertLogs'>(c) as { logs: CustomLogInput[] };
  const { config, now: clock } = call.services;
  const now = clock();
  const masked = new Set(config.headersToMask);
  const entries: RequestLogEntry[] = [];
  for (const log of logs) {
    const workspaceId = await targetWorkspaceId(call, principal, log.workspace_id);
    const entry = toEntry(log, { organisationId: principal.organisationId, workspaceId, apiKeyId: principal.keyId ?? '', now });
    entries.push(prepareEntry(entry, masked, config.logBodyMaxBytes));
  }
  const stored = await withBodyPolicy(entries, (organisationId, workspaceId) => call.services.savedResources.securitySettings(organisationId, workspaceId));
  await call.services.store.requestLogs.insertMany(stored, 'custom', { rollUp: false });
  return { status: 201, body: { object: 'list', data: entries.map(({ id, trace_id }) => ({ id, trace_id })) } };
};

