import { exportSnapshot } from '../../gateway/deployment/snapshot.js';
import { importPublicKey } from '../../gateway/deployment/transfer-seal.js';
import { ValidationError } from '../../core/errors.js';
import { writeShippedLogs } from '../../store/shipped-logs.js';
import { body, type Handler, type Reply } from '../types.js';
import { callingDeployment } from './calling-deployment.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** ETags travel quoted; the version inside is what the snapshot names. */
const etag = (version: string) => `"${version}"`;

export const deploymentSync: Handler = async (c, call): Promise<Reply> => {
  const deployment = await callingDeployment(call, 'sync');
  const recipient = importPublicKey(header(c.request.headers['x-gw-sync-key']) ?? '');
  if (!recipient) throw new ValidationError('x-gw-sync-key must be an X25519 public key (base64 SPKI DER)', 'x-gw-sync-key', 'invalid_sync_key');
  const known = header(c.request.headers['if-none-match'])?.replace(/^W\//, '').replace(/"/g, '');
  const { version, snapshot } = await exportSnapshot(call.services.db, call.services.secrets, deployment.organisation_id, recipient, known);
  if (!snapshot) return { status: 304, headers: { etag: etag(version) } };
  return { body: snapshot, headers: { etag: etag(version), 'cache-control': 'no-store' } };
};

export const deploymentShipLogs: Handler = async (c, call) => {
  const deployment = await callingDeployment(call, 'ship logs');
  const { logs } = body<'deploymentShipLogs'>(c);
  // Rows land in the deployment's own organisation, whatever they say, under its workspaces' body policy
  // (a data plane applies it too; one on an older release may not).
  const rows = await withoutPolicyBodies(call, deployment.organisation_id, logs as Array<Record<string, unknown>>);
  await writeShippedLogs(call.services.db, deployment.organisation_id, rows);
  return { body: { received: logs.length } };
};

async function withoutPolicyBodies(call: Parameters<Handler>[1], organisationId: string, rows: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>> {
  const stored = new Map<string, boolean>();
  for (const row of rows) {
    const workspaceId = typeof row.workspace_id === 'string' ? row.workspace_id : '';
    if (!stored.has(workspaceId)) stored.set(workspaceId, (await call.services.savedResources.securitySettings(organisationId, workspaceId || null)).storeRequestBodies);
  }
  return rows.map((row) => (stored.get(typeof row.workspace_id === 'string' ? row.workspace_id : '') ? row : { ...row, request_body: null, response_body: null }));
}
