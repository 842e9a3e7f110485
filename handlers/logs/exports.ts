import { actorOf } from '../../core/auth/principal.js';
import { createReadStream, existsSync } from 'node:fs';
import type { Principal } from '../../core/auth/principal.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import { sendStream } from '../../core/respond.js';
import type { LogExportFilters, LogExportRecord } from '../../store/repositories/log-exports.js';
import { toLogFilter } from '../../gateway/logs/log-filter-input.js';
import { body, pathId, query, STREAMED, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { listWorkspaceFilter, targetWorkspaceId } from '../workspace-target.js';

function deniedIn(settings: Record<string, unknown> | undefined): string[] {
  const denied = (settings?.export_settings as { deniedFields?: unknown } | undefined)?.deniedFields;
  return Array.isArray(denied) ? denied.filter((field): field is string => typeof field === 'string') : [];
}

/** Fields no export may include: the organisation's deniedFields plus the workspace's, when it has its own. */
async function deniedFields(call: Call, principal: Principal, workspaceId: string | null): Promise<string[]> {
  const { store } = call.services;
  const organisation = await store.organisations.get(principal.organisationId);
  const denied = new Set(deniedIn(organisation?.settings));
  if (workspaceId) {
    const workspace = await store.workspaces.find(principal.organisationId, workspaceId);
    for (const field of deniedIn(workspace?.settings)) denied.add(field);
  }
  return [...denied].sort();
}

function present(record: LogExportRecord) {
  const { resume_cursor: _c, bytes_written: _b, archived_at: _a, ...visible } = record;
  return { ...visible, object: 'log_export' };
}

/** An export the caller may see: its organisation's, and for workspace keys their workspace's only. */
async function visibleExport(call: Call, id: string): Promise<LogExportRecord> {
  const principal = principalOf(call);
  const record = await call.services.store.logExports.get(principal.organisationId, id);
  if (!record || (principal.workspaceId !== null && record.workspace_id !== principal.workspaceId)) throw new NotFoundError('Log export', id);
  return record;
}

export const createLogExport: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createLogExport'>(c) as { workspace_id?: string; description?: string; filters?: LogExportFilters; requested_fields: string[] };
  const workspaceId = input.workspace_id === undefined ? principal.workspaceId : await targetWorkspaceId(call, principal, input.workspace_id);
  const denied = new Set(await deniedFields(call, principal, workspaceId));
  const refused = input.requested_fields.filter((field) => denied.has(field));
  if (refused.length) throw new ValidationError(`The organisation does not allow exporting: ${refused.join(', ')}`, 'requested_fields', 'export_field_denied');
  const filters = input.filters ?? {};
  // Parse now so a bad filter is a 400 at creation, not a failed export later.
  toLogFilter(principal.organisationId, workspaceId ?? undefined, filters);
  const record = await call.services.store.logExports.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      description: input.description ?? null,
      filters,
      requested_fields: input.requested_fields,
      created_by: actorOf(principal),
    },
    isoNow(call),
  );
  return { status: 201, body: present(record) };
};

export const listLogExports: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listLogExports'>(c);
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  const page = await call.services.store.logExports.list(principal.organisationId, { workspace_id: workspaceId }, q);
  return { body: { ...page, data: page.data.map(present) } };
};

export const getLogExport: Handler = async (c, call) => ({ body: present(await visibleExport(call, pathId(c))) });

/**
 * draft -> in_progress. Without an end_time the export is bounded at the moment it starts, so
 * it does not chase logs that keep arriving.
 */
export const startLogExport: Handler = async (c, call) => {
  const record = await visibleExport(call, pathId(c));
  if (record.status !== 'draft') throw new ConflictError(`Only a draft export can be started; this one is ${record.status}`, 'export_not_draft');
  const { store, logExports } = call.services;
  const now = isoNow(call);
  const filters = { ...record.filters, end_time: record.filters.end_time ?? now };
  const total = await store.requestLogs.count(toLogFilter(record.organisation_id, record.workspace_id ?? undefined, filters));
  const moved = await store.logExports.transition(record.id, ['draft'], 'in_progress', { filters, total_rows: total, started_at: now }, now);
  if (!moved) throw new ConflictError('The export changed state meanwhile; fetch it again', 'export_state_changed');
  logExports.run(record.id);
  return { body: present((await store.logExports.get(record.organisation_id, record.id))!) };
};

export const cancelLogExport: Handler = async (c, call) => {
  const record = await visibleExport(call, pathId(c));
  const { store } = call.services;
  const now = isoNow(call);
  if (!(await store.logExports.transition(record.id, ['in_progress'], 'stopped', { finished_at: now }, now))) {
    throw new ConflictError(`Only an export in progress can be cancelled; this one is ${record.status}`, 'export_not_in_progress');
  }
  return { body: present((await store.logExports.get(record.organisation_id, record.id))!) };
};

/** An export in progress must be cancelled first; a deleted one is archived and its file removed. */
export const deleteLogExport: Handler = async (c, call) => {
  const record = await visibleExport(call, pathId(c));
  const { store, logExports } = call.services;
  if (record.status === 'in_progress') throw new ConflictError('Cancel the export before deleting it', 'export_in_progress');
  const now = isoNow(call);
  if (!(await store.logExports.transition(record.id, ['draft', 'success', 'failed', 'stopped'], record.status, { archived_at: now }, now))) {
    throw new ConflictError('The export changed state meanwhile; fetch it again', 'export_state_changed');
  }
  await logExports.removeFile(record.id);
  return { body: { id: record.id, object: 'log_export', deleted: true } };
};

export const downloadLogExport: Handler = async (c, call) => {
  const record = await visibleExport(call, pathId(c));
  if (record.status !== 'success') throw new ConflictError(`The export is ${record.status}; only a finished export can be downloaded`, 'export_not_ready');
  const file = call.services.logExports.filePath(record.id);
  if (!existsSync(file)) throw new NotFoundError('Export file', record.id);
  call.res.statusCode = 200;
  call.res.setHeader('content-type', 'application/x-ndjson; charset=utf-8');
  call.res.setHeader('content-disposition', `attachment; filename="log-export-${record.id}.jsonl"`);
  await sendStream(call.res, createReadStream(file));
  return STREAMED;
};

export const getLogExportFieldRestrictions: Handler = async (c, call) => {
  const principal = principalOf(call);
  const workspaceId = await targetWorkspaceId(call, principal, query<'getLogExportFieldRestrictions'>(c).workspace_id);
  return { body: { object: 'field_restrictions', workspace_id: workspaceId, denied_fields: await deniedFields(call, principal, workspaceId) } };
};
