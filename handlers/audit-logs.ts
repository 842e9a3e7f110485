import type { components } from '../generated/types.js';
import { principalOf } from '../core/call.js';
import type { AuditLogEntry } from '../store/repositories/audit-logs.js';
import { query, type Handler } from './types.js';
import { visibleWorkspace } from './workspace-access.js';

type EntryBody = components['schemas']['AuditLogEntry'];

function presentEntry(entry: AuditLogEntry): EntryBody {
  return {
    id: entry.id,
    object: 'audit_log',
    organisation_id: entry.organisation_id,
    workspace_id: entry.workspace_id,
    actor: { user_id: entry.actor_user_id, api_key_id: entry.actor_key_id, credential: entry.actor_credential, subject: entry.actor_subject },
    action: entry.action,
    method: entry.method,
    path: entry.path,
    resource_type: entry.resource_type,
    resource_id: entry.resource_id,
    status: entry.status,
    ip_address: entry.ip_address,
    trace_id: entry.trace_id,
    request: entry.request,
    created_at: entry.created_at,
  };
}

/** Times are compared as stored (ISO UTC text), so the filters are normalised to that form first. */
const iso = (value: string | undefined) => (value ? new Date(value).toISOString() : undefined);

export const listAuditLogs: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listAuditLogs'>(c);
  const workspaceId = q.workspace_id ? (await visibleWorkspace(call, q.workspace_id)).id : undefined;
  const page = await call.services.store.auditLogs.list(
    principal.organisationId,
    {
      start_time: iso(q.start_time),
      end_time: iso(q.end_time),
      action: q.action,
      actor_id: q.actor_id,
      resource_type: q.resource_type,
      resource_id: q.resource_id,
      workspace_id: workspaceId,
    },
    q,
  );
  return { body: { ...page, data: page.data.map(presentEntry) } };
};
