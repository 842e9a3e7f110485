import type { Context } from 'openapi-backend';
import type { Reply } from '../handlers/types.js';
import type { Call } from '../core/call.js';
import { redactedError, requestSecrets } from '../core/request-secrets.js';

const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** Scopes of data-plane calls: traffic, not administration, so never audited. */
const DATA_PLANE_SCOPES = new Set(['completions.write', 'logs.write', 'feedback.create', 'feedback.update']);


interface AuditedOperation {
  operationId?: string;
  method?: string;
  'x-gw-scope'?: string;
  'x-gw-audit'?: boolean;
}

/** Which operations are administrative writes: write methods of scoped control-plane operations (`x-gw-audit: false` opts out). */
export function isAudited(operation: AuditedOperation | undefined): boolean {
  if (!operation?.method || !WRITE_METHODS.has(operation.method.toLowerCase())) return false;
  const scope = operation['x-gw-scope'];
  if (!scope || operation['x-gw-audit'] === false) return false;
  return !DATA_PLANE_SCOPES.has(scope) && !scope.endsWith('.invoke');
}

function stringField(value: unknown, name: string): string | undefined {
  const field = value && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
  return typeof field === 'string' ? field : undefined;
}

/**
 * Writes one audit entry for an administrative write: who (user and key), what (operationId and
 * the scope's resource), on which id, from where, with which outcome. A failed audit write is
 * logged, not turned into a failed call: the change itself has already happened.
 */
export async function recordAudit(c: Context, call: Call, status: number, reply?: Reply): Promise<void> {
  const operation = c.operation as AuditedOperation | undefined;
  const principal = call.principal;
  if (!principal || !isAudited(operation)) return;
  const resourceType = operation!['x-gw-scope']!.split('.')[0]!;
  const params = c.request.params as Record<string, string | undefined>;
  const answer = reply?.body;
  const requestBody = c.request.requestBody as unknown;
  const memberId = resourceType === 'workspace_users' ? (params.userId ?? stringField(answer, 'user_id')) : undefined;
  const resourceId = memberId ?? stringField(answer, 'id') ?? params.id ?? null;
  const workspaceId =
    principal.workspaceId ??
    stringField(answer, 'workspace_id') ??
    (resourceType === 'workspaces' ? (stringField(answer, 'id') ?? params.id) : undefined) ??
    stringField(requestBody, 'workspace_id') ??
    null;
  try {
    await call.services.store.auditLogs.record({
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      actor_user_id: principal.userId,
      actor_key_id: principal.keyId,
      actor_credential: principal.credential,
      actor_subject: principal.subject,
      action: operation!.operationId ?? 'unknown',
      method: c.request.method.toUpperCase(),
      path: c.request.path,
      resource_type: resourceType,
      resource_id: resourceId,
      status,
      ip_address: call.ip || null,
      trace_id: call.traceId,
      request: requestBody === undefined ? null : requestSecrets(call).payload(requestBody),
      created_at: new Date(call.services.now()).toISOString(),
    });
  } catch (error) {
    call.services.logger.error({ err: redactedError(call, error), traceId: call.traceId }, 'audit log write failed');
  }
}
