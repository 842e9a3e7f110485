import type { Operation } from 'openapi-backend';
import { isAudited } from './audit.js';
import { ForbiddenError } from '../core/errors.js';

/** Writes a data plane keeps for itself: conversations and runs it serves, and its own logs. */
const LOCAL_RESOURCES = new Set(['assistants', 'threads', 'logs', 'feedback']);

/**
 * A gw in data-plane mode serves what its control plane holds: administrative writes
 * (server/audit.ts decides which) are refused, since the next sync would undo them anyway.
 */
export function refuseDataPlaneAdminWrite(operation: Operation): void {
  if (!isAudited(operation as never)) return;
  const resource = String((operation as { 'x-gw-scope'?: string })['x-gw-scope']).split('.')[0]!;
  if (LOCAL_RESOURCES.has(resource)) return;
  throw new ForbiddenError(
    `This gw is a data plane synced from its control plane (GW_CONTROL_PLANE_URL): make ${operation.operationId} there; it reaches this gw within seconds`,
    'data_plane_read_only',
  );
}
